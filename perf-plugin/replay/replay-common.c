/* SPDX-License-Identifier: MIT */
/* Shared by the replaying subcommands. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tlreplay/store.h>

#include "util/child-signals.h"
#include "replay/replay-common.h"

void replay_opts_init(struct replay_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->device = "cpu";
	ro->iters = 100;
	ro->warmup = 10;
	ro->budget_s = REPLAY_BUDGET_S;
	ro->timeout_s = 600;
}

static bool parse_long(const char *s, long lo, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return !errno && *s && !*end && *v >= lo;
}

static int opt_device(const struct opt *opt, const char *arg, void *obj)
{
	(void)opt;
	if (strcmp(arg, "cpu") && strncmp(arg, "cuda", 4))
		return cli_error("--device: '%s' is neither cpu nor cuda[:N]", arg);
	((struct replay_opts *)obj)->device = arg;
	return 0;
}

/* -r/--iters, --warmup, --seed: whole numbers from 1, 0, 0 */
static int opt_count(const struct opt *opt, const char *arg, void *obj)
{
	struct replay_opts *ro = obj;

	switch (opt->value) {
	case 'r':
		ro->iters_given = true;
		return parse_long(arg, 1, &ro->iters) ? 0 : cli_error("-r: '%s' is not a count >= 1", arg);
	case 'w':
		return parse_long(arg, 0, &ro->warmup) ? 0 : cli_error("--warmup: bad count '%s'", arg);
	default:
		return parse_long(arg, 0, &ro->seed) ? 0 : cli_error("--seed: bad value '%s'", arg);
	}
}

/* --min-time (>= 0), --timeout (> 0) and --budget (>= 0), in seconds */
static int opt_seconds(const struct opt *opt, const char *arg, void *obj)
{
	struct replay_opts *ro = obj;
	double *v = opt->value == 1 ? &ro->timeout_s : opt->value == 2 ? &ro->budget_s : &ro->min_time_s;
	char *end;

	*v = strtod(arg, &end);
	if (*end || (opt->value == 1 ? *v <= 0 : *v < 0) || !isfinite(*v))
		return cli_error("--%s: bad seconds '%s'", opt->long_name, arg);
	return 0;
}

static int opt_plugin(const struct opt *opt, const char *arg, void *obj)
{
	struct replay_opts *ro = obj;

	(void)opt;
	if (ro->nplugins == TL_ARRAY_N(ro->plugins))
		return cli_error("--init-plugin: at most %zu", TL_ARRAY_N(ro->plugins));
	if (access(arg, R_OK))
		return cli_error("--init-plugin: %s: %s", arg, strerror(errno));
	ro->plugins[ro->nplugins++] = arg;
	return 0;
}

static int opt_kwargs(const struct opt *opt, const char *arg, void *obj)
{
	cJSON *j = cJSON_Parse(arg);
	bool okj = cJSON_IsObject(j);

	(void)opt;
	cJSON_Delete(j);
	if (!okj)
		return cli_error("--init-kwargs: not a JSON object: %s", arg);
	((struct replay_opts *)obj)->init_kwargs = arg;
	return 0;
}

/* --namespace NS=MOD[,MOD] and --alias OP=OTHER[,OTHER] (opt->value 'a') */
static int opt_kv(const struct opt *opt, const char *arg, void *obj)
{
	struct replay_opts *ro = obj;
	bool alias = opt->value == 'a';
	const char **v = alias ? ro->aliases : ro->namespaces;
	size_t *n = alias ? &ro->naliases : &ro->nnamespaces;
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1])
		return cli_error("--%s: '%s' is not %s", opt->long_name, arg,
				 alias ? "OP=OTHER[,OTHER]" : "NS=MODULE[,MODULE]");
	if (*n == 16)
		return cli_error("--%s: at most 16", opt->long_name);
	v[(*n)++] = arg;
	return 0;
}

const struct opt opts_replay[] = {
	OPT_CALLBACK('r', "iters", "N", opt_count, 'r', "timed calls (default 100)"),
	OPT_CALLBACK(0, "warmup", "N", opt_count, 'w', "untimed calls first (default 10)"),
	OPT_CALLBACK(0, "min-time", "S", opt_seconds, 0, "keep timing until S seconds have passed"),
	OPT_CALLBACK(0, "budget", "S", opt_seconds, 2,
		     "on the CPU without -r or --min-time: as many calls as fit S\n"
		     "seconds, judged by the first (default 10; 0: the counts asked)"),
	OPT_CALLBACK(0, "device", "DEV", opt_device, 0, "cpu (default), cuda or cuda:N"),
	OPT_BOOL(0, "flush-l2", struct replay_opts, flush_l2, "CUDA: evict the L2 cache before each timed call"),
	OPT_BOOL(0, "cuda-graph", struct replay_opts, cuda_graph,
		 "CUDA: capture the op in a graph and time its replays (tiny ops)"),
	OPT_CALLBACK(0, "seed", "N", opt_count, 's', "seed for the tensor contents (default 0)"),
	OPT_CALLBACK(0, "init-plugin", "FILE.py", opt_plugin, 0,
		     "custom initializers (repeatable; first exact op match wins)"),
	OPT_CALLBACK(0, "init-kwargs", "JSON", opt_kwargs, 0,
		     "options for the initializers, e.g. '{\"moe_distribution\": \"zipf\"}'"),
	OPT_STRING(0, "python", "PATH", struct replay_opts, python,
		   "interpreter with torch (a bare name is looked up on PATH; default\n"
		   "$TLREPLAY_PYTHON, else the first with torch of $VIRTUAL_ENV,\n"
		   "$CONDA_PREFIX, the python3s on PATH, " TL_DEFAULT_PYTHON ")"),
	OPT_STRING(0, "schemas", "FILE", struct replay_opts, schemas,
		   "match op schemas against this snapshot instead of the\nworker's torch"),
	OPT_CALLBACK(0, "timeout", "S", opt_seconds, 1, "give up on one op after S seconds (default 600)"),
	OPT_CALLBACK(0, "namespace", "NS=MOD[,MOD]", opt_kv, 'n',
		     "import MOD (a module or a FILE.py) for the ops of NS\n"
		     "(repeatable; aiter, vllm, _C, _rocm_C, _C_cache_ops are known)"),
	OPT_CALLBACK(0, "alias", "OP=OTHER[,OTHER]", opt_kv, 'a',
		     "replay OP as OTHER when this torch lacks OP (repeatable)"),
	OPT_STRING(0, "control", "fd:CTL[,ACK] | fifo:CTL[,ACK]", struct replay_opts, control,
		   "under `perf stat -D -1 --control ...`: send\n"
		   "enable/disable around the timed calls only (also taken from\n"
		   "PERF_CTL_FD/PERF_ACK_FD or PERF_STAT_CTL_FIFO/PERF_STAT_ACK_FIFO)"),
	OPT_STRING(0, "store", "FILE", struct replay_opts, store,
		   "the results store (default $TLREPLAY_STORE, else\n~/.local/state/tlreplay/results.jsonl)"),
	OPT_BOOL(0, "no-store", struct replay_opts, no_store, "do not record the results"),
	OPT_BOOL('v', "verbose", struct replay_opts, verbose, "arguments, worker messages, tracebacks"),
	OPT_END(),
};

/* {"KEY": ["V1", "V2"], ...} from "KEY=V1,V2" strings. */
static cJSON *kv_lists(const char *const *v, size_t n)
{
	cJSON *o = cJSON_CreateObject();
	size_t i;

	for (i = 0; o && i < n; i++) {
		const char *eq = strchr(v[i], '='), *p = eq + 1;
		char key[256];
		cJSON *list;

		snprintf(key, sizeof(key), "%.*s", (int)(eq - v[i]), v[i]);
		list = cJSON_GetObjectItemCaseSensitive(o, key);
		if (!list)
			list = cJSON_AddArrayToObject(o, key);
		while (list && *p) {
			size_t m = strcspn(p, ",");

			if (m) {
				char *item = strndup(p, m), *abs = NULL;

				/* a FILE.py module: absolute, as the worker may run elsewhere */
				if (item && (strchr(item, '/') || (m > 3 && !strcmp(item + m - 3, ".py"))))
					abs = realpath(item, NULL);
				cJSON_AddItemToArray(list, cJSON_CreateString(abs ? abs : item ? item : ""));
				free(abs);
				free(item);
			}
			p += m + (p[m] == ',');
		}
	}
	return o;
}

static pid_t worker_pid_of(const void *w)
{
	return tl_worker_pid(w);
}

int replay_worker_start(const struct tl_worker_opts *wo, struct tl_worker **w)
{
	struct tl_worker_opts o = { .sz = sizeof(o) };
	char py[PATH_MAX], why[128];
	int err;

	/* found once here (probing interpreters forks Pythons) and passed on,
	 * so that what is said is what runs; said where someone watches */
	if (wo)
		memcpy(&o, wo, wo->sz < sizeof(o) ? wo->sz : sizeof(o));
	err = tl_python_find(o.python, py, sizeof(py), why, sizeof(why));
	if (err)
		return err;
	if (isatty(2))
		fprintf(stderr, "tlreplay: replaying with %s (%s)\n", py, why);
	o.python = py;
	err = tl_worker_start(&o, w);

	/* SIGINT/SIGTERM/SIGHUP of tlreplay reach the worker too (child-signals.h);
	 * with the table full it still dies with us (PR_SET_PDEATHSIG), only
	 * without the signal first */
	if (!err)
		(void)child_signals_add(*w, worker_pid_of);
	return err;
}

void replay_worker_stop(struct tl_worker *w)
{
	child_signals_del(w);
	tl_worker_stop(w);
}

int replay_worker(const struct replay_opts *ro, struct tl_worker **w)
{
	struct tl_worker_opts wo = { .sz = sizeof(wo), .python = ro->python, .verbose = ro->verbose };
	int err = replay_worker_start(&wo, w);

	return err ? cli_lib_error(err) : 0;
}

int replay_check_device(const struct replay_opts *ro, struct tl_worker *w)
{
	int err = tl_worker_check_device(w, ro->device);

	return err ? cli_lib_error(err) : 0;
}

/* ------------------------------------------------------------------ schemas */

/* The schemas come from --schemas, else the worker's torch, else the
 * bundled snapshot: the library has each source (ir reads a file or
 * strings, replay asks the worker); the choice between them is the
 * command's. */
int replay_schemas(const struct replay_opts *ro, struct tl_worker *w, const char *const *ns,
		   size_t nns, struct tl_schema_db **db)
{
	const char *snap;
	int err;

	*db = NULL;
	if (ro->schemas) {
		err = tl_schema_db_load(ro->schemas, db);
		return err ? cli_lib_error(err) : 0;
	}
	if (w) {
		/* the user's --namespace modules, and the trace's namespaces */
		cJSON *arr = kv_lists(ro->namespaces, ro->nnamespaces);
		char torch[64], label[128], **v = NULL;
		size_t i, n = 0;

		for (i = 0; arr && i < nns; i++)
			if (!cJSON_GetObjectItemCaseSensitive(arr, ns[i]))
				cJSON_AddArrayToObject(arr, ns[i]);
		err = arr ? tl_worker_schemas(w, arr, ro->timeout_s, &v, &n, torch, sizeof(torch)) : -ENOMEM;
		cJSON_Delete(arr);
		if (!err) {
			snprintf(label, sizeof(label), "torch %s (live)", torch);
			err = tl_schema_db_from_strings((const char *const *)v, n, label, db);
			free(v);
			return err ? cli_lib_error(err) : 0;
		}
		/* a worker that cannot list them: the snapshot below */
	}
	snap = tl_schema_snapshot_path();
	if (!snap)
		return cli_error("no operator schemas: no torch to ask and no snapshot found (give --schemas FILE)");
	err = tl_schema_db_load(snap, db);
	return err ? cli_lib_error(err) : 0;
}

/* ------------------------------------------------------------------ requests */

/* The library's request parameters from the replay options; the
 * namespaces and aliases lists are made here (free with params_done). */
static void params_of(const struct replay_opts *ro, struct tl_replay_params *p)
{
	*p = (struct tl_replay_params){ .sz = sizeof(*p), .device = ro->device, .warmup = ro->warmup,
					.iters = ro->iters, .min_time_s = ro->min_time_s,
					.flush_l2 = ro->flush_l2, .cuda_graph = ro->cuda_graph,
					.verbose = ro->verbose, .seed = ro->seed, .plugins = ro->plugins,
					.nplugins = ro->nplugins, .init_kwargs = ro->init_kwargs,
					.gpu_metrics = ro->gpu_metrics, .gpu_lib = ro->gpu_lib,
					.timeout_s = ro->timeout_s };
	/* a GPU-sized op on the CPU: a call can take seconds; -r and --min-time say how long */
	if (!ro->iters_given && ro->min_time_s == 0 && (!ro->device || !strncmp(ro->device, "cpu", 3)))
		p->budget_s = ro->budget_s;
	if (ro->nnamespaces)
		p->namespaces = kv_lists(ro->namespaces, ro->nnamespaces);
	if (ro->naliases)
		p->aliases = kv_lists(ro->aliases, ro->naliases);
}

static void params_done(struct tl_replay_params *p)
{
	cJSON_Delete((cJSON *)p->namespaces);
	cJSON_Delete((cJSON *)p->aliases);
}

cJSON *replay_request(const struct replay_opts *ro, cJSON *entry)
{
	struct tl_replay_params p;
	cJSON *r;

	params_of(ro, &p);
	r = tl_replay_request(&p, entry);
	params_done(&p);
	return r;
}

struct plan_ctx {
	const struct replay_opts *ro;
	const cJSON *entry;
};

/* Before a long replay, what it will do: a batch's progress line on a
 * terminal, else one line when it takes a few seconds or was cut to fit. */
static void print_plan(const struct tl_replay_plan *pl, void *ctx)
{
	const struct plan_ctx *c = ctx;
	const char *op = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c->entry, "op_name"));
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(c->entry, "uid");
	char uid[32] = "";
	bool tty = isatty(STDERR_FILENO);

	if (cJSON_IsNumber(u))
		snprintf(uid, sizeof(uid), " (UID %.0f)", u->valuedouble);
	if (c->ro->progress && tty) {
		fprintf(stderr, "\r\033[K%s %.50s: %ld calls, about %.1f s", c->ro->progress, op ? op : "?",
			pl->warmup + pl->iters, pl->estimate_s);
		return;
	}
	if (pl->estimate_s < REPLAY_SAY_AFTER_S && !pl->cut)
		return;
	fprintf(stderr,
		"%stlreplay: %s%s: a call takes %.3g s on %s: %ld timed call%s after %ld warm-up, about %.2g s%s\n",
		tty ? "\r\033[K" : "", op ? op : "?", uid, pl->first_call_s, c->ro->device ? c->ro->device : "cpu",
		pl->iters, pl->iters == 1 ? "" : "s", pl->warmup, pl->estimate_s,
		pl->cut ? " (fitted to the --budget; -r N or --min-time S to choose)" : "");
}

cJSON *replay_one(const struct replay_opts *ro, struct tl_worker *w, cJSON *entry,
		  tl_region_fn region, void *ctx)
{
	struct tl_replay_params p;
	struct plan_ctx pc = { ro, entry };
	cJSON *r;

	params_of(ro, &p);
	p.on_plan = ro->quiet_plan ? NULL : print_plan;
	p.plan_ctx = &pc;
	r = tl_replay_one(w, &p, entry, region, ctx);
	params_done(&p);
	return r;
}

size_t op_namespace_len(const char *op)
{
	const char *sep = strstr(op, "::");
	size_t n = sep ? (size_t)(sep - op) : 0;

	if ((n == 4 && !strncmp(op, "aten", 4)) || (n == 5 && !strncmp(op, "prims", 5)))
		return 0;
	return n;
}

int uid_job_prepare(struct uid_job *job, const struct common_opts *co, const struct replay_opts *ro,
		    const char *cmd, const char *uid_str)
{
	struct tl_ir_opts io = { .sz = sizeof(io), .allow_schemaless = true };
	struct tl_schema_db *db = NULL;
	struct tl_event_info ev;
	char nsbuf[128];
	const char *ns = NULL;
	size_t n;
	int rc = 1, err;

	memset(job, 0, sizeof(*job));
	if (!parse_u64(uid_str, &job->uid))
		return cli_error("%s: '%s' is not a UID (an event's index in traceEvents)", cmd, uid_str);
	if (cli_open_trace(co, &job->tr))
		return 1;
	if (tl_trace_event(job->tr, job->uid, &ev)) {
		cli_error("%s: no event with UID %llu in %s (UIDs go from 0 to %llu)", cmd, job->uid,
			  tl_trace_path(job->tr), (unsigned long long)tl_trace_nevents(job->tr) - 1);
		goto out;
	}
	job->name = ev.name;
	if (replay_worker(ro, &job->w) || replay_check_device(ro, job->w))
		goto out;
	n = op_namespace_len(ev.name);
	if (n && n < sizeof(nsbuf)) {
		memcpy(nsbuf, ev.name, n);
		nsbuf[n] = 0;
		ns = nsbuf;
	}
	if (replay_schemas(ro, job->w, ns ? &ns : NULL, ns ? 1 : 0, &db))
		goto out;
	io.db = db;
	err = tl_ir_entry(job->tr, job->uid, &io, &job->entry);
	if (err) {
		cli_lib_error(err);
		goto out;
	}
	/* the trace's identity goes with the results, so that fold finds them */
	if (!ro->no_store && tl_store_trace_id(tl_trace_path(job->tr), &job->trace_id))
		fprintf(stderr, "tlreplay: warning: %s: %s; the result cannot be folded into the trace\n",
			tl_trace_path(job->tr), tl_last_error());
	rc = 0;
out:
	tl_schema_db_free(db);
	return rc;
}

void uid_job_done(struct uid_job *job)
{
	cJSON_Delete(job->entry);
	cJSON_Delete(job->trace_id);
	replay_worker_stop(job->w);
	tl_trace_close(job->tr);
	memset(job, 0, sizeof(*job));
}

const char *reply_status(const cJSON *reply)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(reply, "status");

	return cJSON_IsString(s) ? s->valuestring : "failed";
}

void reply_stats(const cJSON *reply, struct tl_stats *s)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(reply, "times_us"), *it;
	size_t n = (size_t)cJSON_GetArraySize(t), k = 0;
	double *v = malloc((n + 1) * sizeof(*v));

	memset(s, 0, sizeof(*s));
	if (!v)
		return;
	cJSON_ArrayForEach(it, t)
		if (cJSON_IsNumber(it))
			v[k++] = it->valuedouble;
	tl_stats_compute(v, k, s);
	free(v);
}

cJSON *replay_read_ir(const char *path)
{
	size_t len;
	/* gzip or plain; a pipe too (`replay <(zcat ir.json.gz)`, /dev/stdin),
	 * never a device: /dev/zero would be read to the limit for nothing */
	char *buf = cli_read_file(path, "an IR file", TL_INPUT_PIPE | TL_INPUT_GUNZIP, &len);
	cJSON *doc;

	if (!buf) {
		cli_lib_error(-errno);
		return NULL;
	}
	doc = cJSON_ParseWithLength(buf, len);
	if (!doc) {
		const char *at = cJSON_GetErrorPtr();

		cli_error("%s: not valid JSON (at byte %ld)", path, at && at >= buf ? (long)(at - buf) : -1L);
	} else if (!cJSON_IsArray(doc)) {
		cli_error("%s: not a replay IR file (expected a JSON list of entries)", path);
		cJSON_Delete(doc);
		doc = NULL;
	}
	free(buf);
	return doc;
}

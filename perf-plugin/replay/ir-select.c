/* SPDX-License-Identifier: MIT */
/* Selecting the ops that become replay IR entries (ir-select.h). */
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/ir-select.h"

static int opt_top(const struct opt *opt, const char *arg, void *obj)
{
	struct ir_select *sel = obj;

	(void)opt;
	if (!parse_u64(arg, &sel->top) || !sel->top)
		return cli_error("--top: '%s' is not a count >= 1", arg);
	return 0;
}

const struct opt opts_ir_select[] = {
	OPT_BOOL(0, "launchers", struct ir_select, launchers, "kernel launchers only (ops that launched GPU work)"),
	OPT_BOOL(0, "unique", struct ir_select, unique,
		 "one entry per distinct (name, Input Dims, Input type, Input\n"
		 "Strides, Concrete Inputs), with count and uids (with\n"
		 "--launchers: TraceLens's ops_unique_args groups)"),
	OPT_STRING(0, "filter", "REGEX", struct ir_select, filter,
		   "ops whose name matches the extended regular expression"),
	OPT_CALLBACK(0, "top", "N", opt_top, 0, "the N ops (or groups) with the most GPU time"),
	OPT_BOOL(0, "strict", struct ir_select, strict,
		 "leave out ops no schema matches, instead of typing their\n"
		 "arguments from the profile (schemaless entries)"),
	OPT_BOOL(0, "no-torch", struct ir_select, no_torch,
		 "match against the bundled schema snapshot; start no Python"),
	OPT_END(),
};

/* A candidate op, or a group of ops with the same recorded args (--unique). */
struct cand {
	uint64_t uid;		/* the first op (by ts) */
	double ts;
	double gpu_us;		/* busy time of the GPU events below it (group: summed) */
	/* busy time of every GPU event below it, what a replay of it runs (group:
	 * summed): with --launchers gpu_us is TraceLens's, of the ones it
	 * launched itself, and orders the groups; this is group_gpu_time_us */
	double tree_us;
	char *key;		/* name + recorded args, for --unique */
	uint64_t *members;	/* --unique: every op of the group, by ts */
	size_t nmembers;
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

static void cands_free(struct cands *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].key);
		free(c->v[i].members);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static int cands_add(struct cands *c, uint64_t uid, double ts)
{
	if (c->n == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 256;
		struct cand *nv = realloc(c->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		c->v = nv;
		c->cap = ncap;
	}
	memset(&c->v[c->n], 0, sizeof(c->v[c->n]));
	c->v[c->n].uid = uid;
	c->v[c->n].ts = ts;
	c->n++;
	return 0;
}

static int cmp_iv(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Busy time (union) of the GPU events below @uid. */
static double gpu_busy(const struct tl_trace *tr, uint64_t uid)
{
	uint64_t *g = NULL;
	int64_t n = tl_event_gpu_events(tr, uid, &g), i, k = 0;
	double *iv, busy = 0, s = 0, e = -1;

	if (n <= 0)
		return 0;
	iv = malloc((size_t)n * 2 * sizeof(*iv));
	if (!iv) {
		free(g);
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct tl_event_info ev;

		if (tl_trace_event(tr, g[i], &ev) || !ev.has_ts || !ev.has_dur)
			continue;
		iv[2 * k] = ev.ts;
		iv[2 * k + 1] = ev.ts + ev.dur;
		k++;
	}
	qsort(iv, (size_t)k, 2 * sizeof(*iv), cmp_iv);
	for (i = 0; i < k; i++) {
		if (iv[2 * i] > e) {
			busy += e > s ? e - s : 0;
			s = iv[2 * i];
			e = iv[2 * i + 1];
		} else if (iv[2 * i + 1] > e) {
			e = iv[2 * i + 1];
		}
	}
	busy += e > s ? e - s : 0;
	free(iv);
	free(g);
	return busy;
}

/* "name\x1f<Input Dims>\x1f<Input type>\x1f<Input Strides>\x1f<Concrete Inputs>" */
static char *args_key(const struct tl_trace *tr, uint64_t uid, const char *name)
{
	static const char *const keys[] = { "Input Dims", "Input type", "Input Strides",
					     "Concrete Inputs" };
	cJSON *args = NULL;
	char *buf = NULL;
	size_t len = 0, k;
	FILE *f;

	if (tl_trace_event_args(tr, uid, &args) == -ENOMEM)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f) {
		cJSON_Delete(args);
		return NULL;
	}
	fputs(name, f);
	for (k = 0; k < TL_ARRAY_N(keys); k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, keys[k]);
		char *t = v ? cJSON_PrintUnformatted(v) : NULL;

		fprintf(f, "\x1f%s", t ? t : "");
		free(t);
	}
	cJSON_Delete(args);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int cmp_key_ts(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->uid > y->uid) - (x->uid < y->uid);
}

static int cmp_gpu_desc(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->gpu_us != y->gpu_us)
		return x->gpu_us > y->gpu_us ? -1 : 1;
	return (x->uid > y->uid) - (x->uid < y->uid);
}

static int cmp_uid(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return (x->uid > y->uid) - (x->uid < y->uid);
}

/* Merge candidates with equal keys into groups (the first by ts leads). */
static int group_unique(struct cands *c)
{
	size_t i, j, out = 0;

	qsort(c->v, c->n, sizeof(*c->v), cmp_key_ts);
	for (i = 0; i < c->n; i = j) {
		struct cand g = c->v[i];

		for (j = i + 1; j < c->n && !strcmp(c->v[j].key, g.key); j++)
			;
		g.members = malloc((j - i) * sizeof(*g.members));
		if (!g.members) {
			c->n = out;	/* what is left past out is lost, not freed twice */
			return -ENOMEM;
		}
		g.nmembers = j - i;
		g.gpu_us = g.tree_us = 0;
		for (size_t k = i; k < j; k++) {
			g.members[k - i] = c->v[k].uid;
			g.gpu_us += c->v[k].gpu_us;
			g.tree_us += c->v[k].tree_us;
			if (k > i)
				free(c->v[k].key);
		}
		c->v[out++] = g;
	}
	c->n = out;
	return 0;
}

/* The candidates of @sel before grouping; 1 after printing why. */
static int collect(struct tl_trace *tr, const struct ir_select *sel, const char *cmd,
		   struct cands *c)
{
	struct tl_launcher_set *ls = NULL;
	regex_t re;
	bool have_re = false;
	uint64_t n = tl_trace_nevents(tr), i;
	int rc = 1, err;

	if (sel->filter) {
		err = regcomp(&re, sel->filter, REG_EXTENDED | REG_NOSUB);
		if (err) {
			char msg[128];

			regerror(err, &re, msg, sizeof(msg));
			return cli_error("%s: --filter '%s': %s", cmd, sel->filter, msg);
		}
		have_re = true;
	}
	err = tl_trace_link(tr, NULL);
	if (err) {
		cli_lib_error(err);
		goto out;
	}
	if (sel->nuids) {
		for (i = 0; i < sel->nuids; i++) {
			unsigned long long uid;
			struct tl_event_info ev;

			if (!parse_u64(sel->uids[i], &uid)) {
				cli_error("%s: '%s' is not a UID (an event's index in traceEvents)", cmd,
					  sel->uids[i]);
				goto out;
			}
			if (tl_trace_event(tr, uid, &ev)) {
				cli_error("%s: no event with UID %llu in %s (UIDs go from 0 to %llu)", cmd, uid,
					  tl_trace_path(tr), (unsigned long long)n - 1);
				goto out;
			}
			if (cands_add(c, uid, ev.ts))
				goto nomem;
		}
	} else if (sel->launchers) {
		struct tl_launcher_opts lo = { .sz = sizeof(lo) };

		err = tl_launchers(tr, &lo, &ls);
		if (err) {
			cli_lib_error(err);
			goto out;
		}
		for (i = 0; i < ls->n; i++) {
			struct tl_event_info ev;

			tl_trace_event(tr, ls->v[i].uid, &ev);
			if (ev.kind != TL_KIND_CPU_OP)
				continue;	/* a runtime call launched it: no op to replay */
			if (have_re && regexec(&re, ev.name, 0, NULL, 0))
				continue;
			if (cands_add(c, ev.uid, ev.ts))
				goto nomem;
			c->v[c->n - 1].gpu_us = ls->v[i].direct_us;
		}
	} else {
		for (i = 0; i < n; i++) {
			struct tl_event_info ev;

			tl_trace_event(tr, i, &ev);
			if (ev.kind != TL_KIND_CPU_OP || !ev.args ||
			    !memmem(ev.args, ev.args_len, "\"Input Dims\"", 12))
				continue;
			if (have_re && regexec(&re, ev.name, 0, NULL, 0))
				continue;
			if (cands_add(c, i, ev.ts))
				goto nomem;
		}
	}
	if (!c->n) {	/* nothing selected: the caller says so */
		rc = 0;
		goto out;
	}
	for (i = 0; i < c->n; i++) {
		struct tl_event_info ev;

		c->v[i].tree_us = gpu_busy(tr, c->v[i].uid);
		if (!sel->launchers)
			c->v[i].gpu_us = c->v[i].tree_us;
		if (sel->unique) {
			tl_trace_event(tr, c->v[i].uid, &ev);
			c->v[i].key = args_key(tr, c->v[i].uid, ev.name);
			if (!c->v[i].key)
				goto nomem;
		}
	}
	if (sel->unique && group_unique(c))
		goto nomem;
	/* most GPU time first when ranking or grouping; trace order otherwise */
	if (sel->top || sel->unique)
		qsort(c->v, c->n, sizeof(*c->v), cmp_gpu_desc);
	else if (!sel->nuids)
		qsort(c->v, c->n, sizeof(*c->v), cmp_uid);
	/* with a check of where entries run, the whole ranking stays: the
	 * builder goes down it until --top N run */
	if (sel->top && c->n > sel->top && !sel->runs) {
		for (i = sel->top; i < c->n; i++) {
			free(c->v[i].key);
			free(c->v[i].members);
		}
		c->n = sel->top;
	}
	rc = 0;
	goto out;
nomem:
	cli_error("out of memory selecting ops");
out:
	if (have_re)
		regfree(&re);
	tl_launcher_set_free(ls);
	return rc;
}

/* Namespaces of the selected ops that the worker should import first. */
static size_t namespaces(struct tl_trace *tr, const struct cands *c, char ***out)
{
	char **v = NULL;
	size_t n = 0, i, k;

	for (i = 0; i < c->n; i++) {
		struct tl_event_info ev;
		size_t len;
		char **nv;

		tl_trace_event(tr, c->v[i].uid, &ev);
		len = op_namespace_len(ev.name);
		if (!len)
			continue;
		for (k = 0; k < n; k++)
			if (strlen(v[k]) == len && !strncmp(v[k], ev.name, len))
				break;
		if (k < n)
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[n] = strndup(ev.name, len);
		if (!v[n])
			break;
		n++;
	}
	*out = v;
	return n;
}

static void tally_error(struct ir_tally *t, int err)
{
	switch (err) {
	case -ENODATA: t->no_shapes++; break;
	case -ENOTSUP: t->not_op++; break;
	case -ENOENT: t->unknown_op++; break;
	case -EINVAL: t->no_overload++; break;
	default: t->other++; break;
	}
	if (!t->first_reason[0])
		snprintf(t->first_reason, sizeof(t->first_reason), "%s", tl_last_error());
}

/* The schema database for @sel; 1 after printing why. The live registry
 * comes from *wp, else from a worker started for it, which is left in *wp
 * for the caller when @wp is not NULL. */
static int schemas_for(struct tl_trace *tr, const struct ir_select *sel,
		       const struct replay_opts *ro, const char *cmd, const struct cands *c,
		       struct tl_worker **wp, struct tl_schema_db **db)
{
	struct tl_worker *w = wp ? *wp : NULL, *own = NULL;
	char **ns = NULL;
	size_t nns = 0, i;
	int rc;

	if (ro->schemas || sel->no_torch) {
		w = NULL;
	} else if (!w) {
		struct tl_worker_opts wo = { .sz = sizeof(wo), .python = ro->python,
					     .verbose = ro->verbose };

		if (replay_worker_start(&wo, &own))
			fprintf(stderr, "tlreplay: %s: note: %s; matching schemas against the bundled "
				"snapshot instead\n", cmd, tl_last_error());
		w = own;
	}
	if (w)
		nns = namespaces(tr, c, &ns);
	rc = replay_schemas(ro, w, (const char *const *)ns, nns, db);
	for (i = 0; i < nns; i++)
		free(ns[i]);
	free(ns);
	if (wp && !*wp)
		*wp = own;
	else
		replay_worker_stop(own);
	return rc;
}

int ir_build_list(struct tl_trace *tr, const struct ir_select *sel, const struct replay_opts *ro,
		  struct tl_worker **w, const char *cmd, cJSON **list, struct ir_tally *t)
{
	struct tl_ir_opts io = { .sz = sizeof(io), .allow_schemaless = !sel->strict };
	struct tl_schema_db *db = NULL;
	struct cands c = { 0 };
	char *abs_trace = NULL;
	bool tty = isatty(2);
	size_t i;
	int rc = 1, err;

	memset(t, 0, sizeof(*t));
	*list = NULL;
	if (collect(tr, sel, cmd, &c))
		goto out;
	t->candidates = c.n;
	if (!c.n) {
		rc = cli_error("%s: no op of %s matches the selection%s", cmd, tl_trace_path(tr),
			       sel->filter ? " (check --filter)" : "");
		goto out;
	}
	if (schemas_for(tr, sel, ro, cmd, &c, w, &db))
		goto out;
	io.db = db;
	/* absolute, so that the results of replaying the file elsewhere still
	 * find their trace (fold) */
	abs_trace = realpath(tl_trace_path(tr), NULL);
	io.trace_label = abs_trace;
	*list = cJSON_CreateArray();
	if (!*list)
		goto nomem;
	for (i = 0; i < c.n; i++) {
		cJSON *e = NULL;

		if (tty && c.n > 200 && i % 64 == 0)
			fprintf(stderr, "\r\033[K%s: %zu/%zu ops", cmd, i, c.n);
		err = tl_ir_entry(tr, c.v[i].uid, &io, &e);
		if (err == -ENOMEM)
			goto nomem;
		if (err && sel->nuids) {
			if (tty && c.n > 200)
				fputs("\r\033[K", stderr);
			cli_error("%s: %s", cmd, tl_last_error());
			goto out;
		}
		if (err) {
			tally_error(t, err);
			continue;
		}
		if (sel->runs && !sel->runs(sel->runs_ctx, e) && !sel->nuids) {
			t->not_runnable++;
			cJSON_Delete(e);
			continue;
		}
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "schemaless")))
			t->schemaless++;
		if (c.v[i].members) {
			cJSON *m = cJSON_CreateArray();
			size_t k;

			cJSON_AddNumberToObject(e, "count", (double)c.v[i].nmembers);
			cJSON_AddNumberToObject(e, "group_gpu_time_us", c.v[i].tree_us);
			for (k = 0; m && k < c.v[i].nmembers; k++)
				cJSON_AddItemToArray(m, cJSON_CreateNumber((double)c.v[i].members[k]));
			if (!m)
				goto nomem;
			cJSON_AddItemToObject(e, "uids", m);
		}
		cJSON_AddItemToArray(*list, e);
		t->written++;
		if (sel->runs && sel->top && t->written >= sel->top)
			break;
	}
	if (tty && c.n > 200)
		fputs("\r\033[K", stderr);
	rc = 0;
	goto out;
nomem:
	cli_error("out of memory building replay IR");
out:
	if (rc) {
		cJSON_Delete(*list);
		*list = NULL;
	}
	free(abs_trace);
	tl_schema_db_free(db);
	cands_free(&c);
	return rc;
}

/* ", N WHAT" after the first (" N WHAT"), nothing when N is 0 */
static void say_count(const char **sep, size_t n, const char *what)
{
	if (!n)
		return;
	fprintf(stderr, "%s%zu %s", *sep, n, what);
	*sep = ", ";
}

void ir_tally_print(const char *cmd, const struct ir_tally *t, const char *dest)
{
	size_t skipped = t->no_shapes + t->not_op + t->unknown_op + t->no_overload + t->other + t->not_runnable;

	fprintf(stderr, "tlreplay: %s: %zu entr%s to %s", cmd, t->written,
		t->written == 1 ? "y" : "ies", dest);
	if (t->schemaless)
		fprintf(stderr, " (%zu schemaless: typed from the profile)", t->schemaless);
	if (skipped) {
		const char *sep = " ";
		char runs[96];

		fprintf(stderr, "; left out %zu:", skipped);
		snprintf(runs, sizeof(runs), "that do%s not run %s", t->not_runnable == 1 ? "es" : "",
			 t->runnable_where ? t->runnable_where : "here");
		say_count(&sep, t->no_shapes, "without recorded shapes");
		say_count(&sep, t->not_op, "autograd functions (not operators)");
		say_count(&sep, t->unknown_op, "unknown to the schemas");
		say_count(&sep, t->no_overload, "matching no overload");
		say_count(&sep, t->other, "other");
		say_count(&sep, t->not_runnable, runs);
		if (skipped > t->not_runnable)
			fprintf(stderr, " (first: %s)", t->first_reason);
	}
	fputc('\n', stderr);
}

/* ------------------------------------------------------------------ ir and pack options */

const struct opt ir_pack_select_opts[] = {
	OPT_INCLUDE(opts_ir_select, offsetof(struct ir_opts, sel)),
	OPT_USE(opts_replay, offsetof(struct ir_opts, ro), "schemas", "match against this schema snapshot"),
	OPT_USE(opts_replay, offsetof(struct ir_opts, ro), "python", "interpreter whose torch gives the live schemas"),
	OPT_USE(opts_replay, offsetof(struct ir_opts, ro), "namespace",
		"import MOD (a module or a FILE.py) so that the live\n"
		"schemas have the ops of NS (repeatable)"),
	OPT_USE(opts_replay, offsetof(struct ir_opts, ro), "verbose", "the worker's messages"),
	OPT_END(),
};

int ir_check_opts(int argc, char **argv, const struct cmd *cmd, struct ir_opts *o)
{
	o->sel.uids = argv + optind;
	o->sel.nuids = (size_t)(argc - optind);
	if (o->sel.nuids && (o->sel.launchers || o->sel.filter || o->sel.top || o->sel.unique))
		return cli_error("%s: give UIDs or a selection (--launchers, --filter, --top, --unique), "
				 "not both", cmd->name);
	if (o->ro.schemas && o->sel.no_torch)
		return cli_error("%s: --schemas and --no-torch both say where schemas come from; give one",
				 cmd->name);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* tlreplay sweep: the top ops of a trace (or the entries of an IR file) x
 * counter groups, in one worker, each result appended to the results store
 * as it comes. A sweep that stops (killed, out of time on a cluster) resumes
 * where it was: results already in the store for the same trace, op, device,
 * events and calls are not run again. Sweeps running side by side on one
 * store share the work (claims, below). At the end the results are folded
 * into a copy of the trace (-o) and drawn (--chart). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "replay/fold-into.h"
#include "replay/ir-select.h"
#include "replay/results.h"
#include "stat/stat-run.h"
#include "chart/sweep-chart.h"

/* Software events count everywhere; the hardware groups where a PMU exists. */
static const char *const default_groups[] = {
	"task-clock,page-faults,context-switches",
	"{cycles,instructions}",
	"{cache-references,cache-misses}",
	"{branches,branch-misses}",
};

struct sweep_opts {
	struct common_opts co;
	struct replay_opts ro;
	struct ir_select sel;
	struct opt_strings events;		/* -e, one group each */
	const char *const *groups;		/* the groups swept: -e's, else the default ones */
	size_t ngroups;
	const char *chart, *folded;
	struct count_opts cnt;		/* -r, --no-scale */
	unsigned long long shard, nshards;
	bool retry_failed;
	double peak_gflops, peak_gbs;	/* the roof of the chart's roofline */
};

static int opt_shard(const struct opt *opt, const char *arg, void *obj)
{
	struct sweep_opts *o = obj;
	char *end;

	(void)opt;
	o->shard = strtoull(arg, &end, 10);
	if (*end != '/' || !(o->nshards = strtoull(end + 1, &end, 10)) || *end || o->shard >= o->nshards)
		return cli_error("sweep: --shard '%s' is not K/N with 0 <= K < N", arg);
	return 0;
}

/* --peak-gflops, --peak-gbs (opt->value 'b') */
static int opt_peak(const struct opt *opt, const char *arg, void *obj)
{
	struct sweep_opts *o = obj;
	char *end;
	double v = strtod(arg, &end);

	if (*end || !(v > 0))
		return cli_error("sweep: --%s: '%s' is not a positive number", opt->long_name, arg);
	*(opt->value == 'b' ? &o->peak_gbs : &o->peak_gflops) = v;
	return 0;
}

#define CO offsetof(struct sweep_opts, co)
#define RO offsetof(struct sweep_opts, ro)
#define SEL offsetof(struct sweep_opts, sel)
#define CNT offsetof(struct sweep_opts, cnt)

static const struct opt sweep_opts_table[] = {
	OPT_USE(opts_trace_input, CO, "input", TRACE_INPUT_HELP_BRIEF),
	OPT_USE(opts_ir_select, SEL, "top", "the N op groups with the most GPU time (default 10)"),
	OPT_USE(opts_ir_select, SEL, "filter", "only ops whose name matches"),
	OPT_STRINGS('e', "event", "EVENTS", struct sweep_opts, events,
		    "one event group per -e, in perf's syntax (repeatable; default:\n"
		     "software events, then {cycles,instructions},\n"
		     "{cache-references,cache-misses}, {branches,branch-misses})"),
	OPT_USE(opts_count, CNT, "repeat", "count each region N times (perf's noise figure)"),
	OPT_USE_AS(opts_replay, RO, "iters", NULL, "timed calls per region (default 50)", OPT_NOSHORT),
	OPT_CALLBACK(0, "shard", "K/N", opt_shard, 0,
		     "only ops K, K+N, K+2N...: one of N machines (a SLURM array)"),
	OPT_BOOL(0, "retry-failed", struct sweep_opts, retry_failed,
		 "run again what failed before (else only what is missing)"),
	OPT_USE(opts_count, CNT, "no-scale", "do not scale multiplexed counts"),
	OPT_STRING('o', "output", "FOLDED", struct sweep_opts, folded,
		   "fold the results into this copy of the trace (.json[.gz])"),
	OPT_STRING(0, "chart", "FILE", struct sweep_opts, chart,
		   "draw the results: FILE.svg, or FILE.png (needs rsvg-convert)"),
	OPT_CALLBACK(0, "peak-gflops", "G", opt_peak, 'f',
		     "the device's peak GFLOP/s and GB/s: the roofline's roof"),
	OPT_CALLBACK_SAME_LINE("peak-gbs", "B", opt_peak, 'b'),
	OPT_HELP(),
	OPT_USE(opts_trace_input, CO, "capture", NULL),
	OPT_USE(opts_replay, RO, "device", NULL),
	OPT_USE(opts_replay, RO, "warmup", "untimed calls before each region (default 10)"),
	OPT_USE(opts_replay, RO, "python", NULL),
	OPT_USE(opts_replay, RO, "store", NULL),
	OPT_USE(opts_replay, RO, "namespace", "import MOD (a module or a FILE.py) for the ops of NS"),
	OPT_USE(opts_replay, RO, "init-plugin", "custom initializers (repeatable)"),
	OPT_USE(opts_replay, RO, "timeout", "give up on one region after S seconds (default 600)"),
	OPT_USE(opts_replay, RO, "verbose", "worker messages, tracebacks"),
	/* the other replay options, taken as uid takes them (--no-store to refuse it) */
	OPT_USE_AS(opts_replay, RO, "min-time", NULL, NULL, OPT_HIDDEN),
	OPT_USE_AS(opts_replay, RO, "flush-l2", NULL, NULL, OPT_HIDDEN),
	OPT_USE_AS(opts_replay, RO, "cuda-graph", NULL, NULL, OPT_HIDDEN),
	OPT_USE_AS(opts_replay, RO, "seed", NULL, NULL, OPT_HIDDEN),
	OPT_USE_AS(opts_replay, RO, "init-kwargs", NULL, NULL, OPT_HIDDEN),
	OPT_USE_AS(opts_replay, RO, "schemas", NULL, NULL, OPT_HIDDEN),
	OPT_USE_AS(opts_replay, RO, "alias", NULL, NULL, OPT_HIDDEN),
	OPT_USE_AS(opts_replay, RO, "control", NULL, NULL, OPT_HIDDEN),
	OPT_USE_AS(opts_replay, RO, "no-store", NULL, NULL, OPT_HIDDEN),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(sweep, sweep_opts_table, "top ops x counter groups, resumable; fold and chart",
	"usage: tlreplay sweep [-i TRACE] [--top N] [-e EVENTS]... [-o FOLDED] [--chart FILE] [IR.json]\n"
	"\n"
	"Replay the top ops of a trace (its kernel launchers grouped by recorded arguments,\n"
	"most GPU time first) or every entry of an IR file, once per event group, in one\n"
	"worker. Each result goes to the results store as it comes, so a sweep that stops\n"
	"resumes where it was: what the store has for the same op, device, events and calls\n"
	"is not run again. Prints a summary, folds the results into a copy of the trace (-o)\n"
	"and draws them (--chart: per-op time, counters per call, roofline where FLOPs are\n"
	"known).\n"
	"\n");
/* clang-format on */

/* sweep's defaults, before its options */
static void sweep_defaults(struct sweep_opts *o)
{
	replay_opts_init(&o->ro);
	o->ro.iters = 50;	/* a sweep runs many regions: fewer calls each */
	o->cnt.cmd = "sweep";
	o->cnt.repeat = 1;
	o->sel.launchers = o->sel.unique = true;
	o->sel.top = 10;
}

/* What sweep's arguments must be besides its options, and the default event
 * groups. Returns 0, or 1 after printing why. */
static int check_sweep(int argc, char **argv, struct sweep_opts *o)
{
	size_t i;

	if (argc - optind > 1)
		return cli_error("sweep: one IR file at most (got '%s' and '%s')", argv[optind], argv[optind + 1]);
	o->groups = o->events.n ? o->events.v : default_groups;
	o->ngroups = o->events.n ? o->events.n : TL_ARRAY_N(default_groups);
	if (o->ro.no_store)
		return cli_error("sweep: --no-store: a sweep lives in its results store (resuming, "
				 "folding, charting)");
	for (i = 0; i < o->ngroups; i++)
		if (stat_check_events(o->groups[i]))
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ the ops */

/* The entries to sweep: an IR file's, or the trace's top kernel launchers;
 * the worker that read the schemas for the latter is left in *w. */
static int load_ops(struct sweep_opts *o, const char *ir_path, struct tl_trace **tr, struct tl_worker **w,
		    cJSON **ops)
{
	struct ir_tally t;

	if (ir_path) {
		*ops = replay_read_ir(ir_path);
		return *ops ? 0 : 1;
	}
	if (cli_open_trace(&o->co, tr))
		return 1;
	if (ir_build_list(*tr, &o->sel, &o->ro, w, "sweep", ops, &t))
		return 1;
	if (!t.written)
		return cli_error("sweep: none of the selected ops of %s could be extracted: %s",
				 tl_trace_path(*tr), t.first_reason);
	return 0;
}

/* ------------------------------------------------------------------ resuming */

/* "sig|uid|device|events|iters" (or the IR file and index for entries
 * without a trace): what makes two sweep results the same measurement. */
static char *result_key(const cJSON *trace_id, const char *ir_path, long index, const cJSON *uid,
			const char *device, const char *events, long iters)
{
	const char *sig = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(trace_id, "sig"));
	char *k = NULL;

	if (sig && cJSON_IsNumber(uid))
		return asprintf(&k, "%s|%.0f|%s|%s|%ld", sig, uid->valuedouble, device, events, iters) < 0 ? NULL : k;
	return asprintf(&k, "%s#%ld|%s|%s|%ld", ir_path ? ir_path : "?", index, device, events, iters) < 0 ? NULL : k;
}

/* A whole number of a results record, -1 when absent or out of range
 * (the store is a file: casting NaN or 1e300 to long is undefined). */
static long rec_long(const cJSON *v)
{
	double d = cJSON_IsNumber(v) ? v->valuedouble : -1;

	return d >= -1 && d < 9.2e18 && d == floor(d) ? (long)d : -1;
}

struct done_set {
	char **keys;
	size_t n, cap;
	bool retry_failed;
};

static int note_done(const cJSON *rec, size_t line, void *ctx)
{
	struct done_set *d = ctx;
	const cJSON *ir = cJSON_GetObjectItemCaseSensitive(rec, "ir");
	const char *cmd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "command"));
	const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "status"));
	const char *ev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "events"));
	const char *dev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "device"));
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(rec, "sweep_iters");
	char *k;

	(void)line;
	if (!cmd || strcmp(cmd, "sweep") || !ev || !dev || !st || !cJSON_IsNumber(it) ||
	    (d->retry_failed && strcmp(st, "ok")))
		return 0;
	/* a replay that failed fails under every group: the whole op is done */
	k = result_key(cJSON_GetObjectItemCaseSensitive(rec, "trace"),
		       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ir, "path")),
		       rec_long(cJSON_GetObjectItemCaseSensitive(ir, "index")),
		       cJSON_GetObjectItemCaseSensitive(rec, "uid"), dev, strcmp(st, "ok") ? "*" : ev,
		       rec_long(it));
	if (!k)
		return -ENOMEM;
	if (d->n == d->cap) {
		size_t nc = d->cap ? 2 * d->cap : 256;
		char **nk = realloc(d->keys, nc * sizeof(*nk));

		if (!nk) {
			free(k);
			return -ENOMEM;
		}
		d->keys = nk;
		d->cap = nc;
	}
	d->keys[d->n++] = k;
	return 0;
}

static bool is_done(const struct done_set *d, const char *key)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->keys[i], key))
			return true;
	return false;
}

static void done_free(struct done_set *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->keys[i]);
	free(d->keys);
}

/* ------------------------------------------------------------------ claims */

/* Two sweeps of one store (two shells, a job array without --shard) would
 * each run every measurement that was not in the store when they started.
 * So a measurement is claimed before it runs: a lock on one byte of
 * STORE.claims, the byte chosen by a hash of the measurement's key, and
 * then the store is read again from where this sweep last read it, so one
 * that another sweep finished meanwhile is not run twice. A claim held by
 * another sweep is passed over and waited for at the end, when this sweep
 * has nothing else to do (the other may die before it writes a result).
 * The locks are open-file-description locks (F_OFD_SETLK): the kernel drops
 * them when their holder exits, however it dies, so no claim outlives its
 * sweep and there is nothing to clean up. Keys whose hashes meet share a
 * byte: one waits for the other, nothing is lost. */

struct claims {
	int fd;			/* STORE.claims, -1 when it cannot be opened */
	uint64_t pos;		/* the store read up to here */
};

static void claims_open(struct claims *c, const char *store)
{
	char *path = NULL;

	c->fd = -1;
	if (asprintf(&path, "%s.claims", store) < 0)
		return;
	/* 0666 & ~umask, like the store; never truncated: holds no data */
	c->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (c->fd < 0)
		fprintf(stderr, "tlreplay: sweep: warning: %s: %s: a sweep running beside this one may repeat "
			"its measurements\n", path, strerror(errno));
	free(path);
}

static off_t claim_byte(const char *key)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 1099511628211ull;
	return (off_t)(h & ((1ull << 40) - 1));
}

/* 1: @key is ours until claim_release(); 0: another sweep holds it (only
 * without @wait); 1 too when there are no claims (nothing to share). */
static int claim(const struct claims *c, const char *key, bool wait)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = claim_byte(key), .l_len = 1 };

	if (c->fd < 0)
		return 1;
	while (fcntl(c->fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl)) {
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EACCES)
			return 0;
		return 1;	/* locks unsupported here (some network file systems): run it */
	}
	return 1;
}

static void claim_release(const struct claims *c, const char *key)
{
	struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = claim_byte(key), .l_len = 1 };

	if (c->fd >= 0)
		fcntl(c->fd, F_OFD_SETLK, &fl);
}

/* ------------------------------------------------------------------ running */

/* A measurement passed over because another sweep held its claim. */
struct deferred {
	cJSON *entry;
	long index;
	size_t group;
};

struct sweep_run {
	struct sweep_opts *o;
	struct tl_worker *w;
	const char *store;
	const char *ir_path;
	struct trace_ids ids;	/* of the entries' traces */
	struct done_set *done;
	struct claims claims;
	struct deferred *later;
	size_t nlater;
	size_t ran, skipped, failed, by_others;
};

/* What other sweeps wrote to the store since this one last read it. */
static int refresh_done(struct sweep_run *s)
{
	int err;

	if (s->claims.fd < 0)
		return 0;
	err = tl_store_read_from(s->store, &s->claims.pos, note_done, s->done, NULL);
	if (err && err != -ENOENT)
		return cli_lib_error(err);
	return 0;
}

/* Whether the store has the result of op @e (index @idx) under group @g,
 * or its failure. */
static bool measured(struct sweep_run *s, const cJSON *e, long idx, size_t g)
{
	const cJSON *uid = cJSON_GetObjectItemCaseSensitive(e, "uid");
	const cJSON *tid = trace_ids_get(&s->ids, e);
	char *key = result_key(tid, s->ir_path, idx, uid, s->o->ro.device, s->o->groups[g], s->o->ro.iters);
	char *failed = result_key(tid, s->ir_path, idx, uid, s->o->ro.device, "*", s->o->ro.iters);
	bool done = (key && is_done(s->done, key)) || (failed && is_done(s->done, failed));

	free(key);
	free(failed);
	return done;
}

/* One op under one event group: counted, recorded. 0, or 1 after printing why
 * the sweep cannot go on (a store that cannot be written, counters that cannot
 * open); a replay that fails is recorded and the sweep goes on. */
static int run_one(struct sweep_run *s, cJSON *entry, long index, const char *events, bool *op_failed)
{
	struct stat_report rep = { 0 };
	struct result_src src = { .trace_id = trace_ids_get(&s->ids, entry), .ir_path = s->ir_path,
				  .ir_index = index };
	cJSON *reply = NULL, *rec = NULL;
	int rc = 1, err;

	err = stat_run(&s->o->ro, s->w, entry, events, s->o->cnt.no_scale, s->o->cnt.repeat, NULL, &rep, &reply);
	if (err == 1)
		goto out;
	*op_failed = err == STAT_RUN_REPLAY_FAILED;
	if (*op_failed) {
		/* which op and why, as it goes: "1 failed" at the end says neither */
		const cJSON *uid = cJSON_GetObjectItemCaseSensitive(entry, "uid");
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(entry, "op_name"));
		const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(reply, "error"));
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", why ? why : "(no reason given)");
		tl_one_line(msg, sizeof(msg));
		fprintf(stderr, "tlreplay: sweep: op %ld", index);
		if (cJSON_IsNumber(uid))
			fprintf(stderr, " (UID %.0f)", uid->valuedouble);
		fprintf(stderr, " %s: replay %s: %s\n", name ? name : "?", reply_status(reply), msg);
	}
	rec = result_record("sweep", &s->o->ro, s->w, entry, reply, &src);
	if (!rec) {
		cli_error("out of memory");
		goto out;
	}
	cJSON_AddStringToObject(rec, "events", events);
	cJSON_AddNumberToObject(rec, "sweep_iters", (double)s->o->ro.iters);
	if (!*op_failed) {
		cJSON_AddItemToObject(rec, "counters", stat_counters_json(&rep));
		cJSON_AddNumberToObject(rec, "runs", (double)rep.runs);
	}
	if (result_store(&s->o->ro, rec))
		goto out;
	rc = 0;
out:
	cJSON_Delete(rec);
	cJSON_Delete(reply);
	stat_report_free(&rep);
	return rc;
}

/* Op @e under group @g, claimed first: 0 (measured, found measured, or
 * passed over for now: *@deferred), or 1 after printing why the sweep
 * cannot go on. @wait: wait for another sweep's claim (the end). */
static int claim_and_run(struct sweep_run *s, cJSON *e, long idx, size_t g, bool wait, bool *op_failed,
			 bool *deferred)
{
	const cJSON *uid = cJSON_GetObjectItemCaseSensitive(e, "uid");
	char *key = result_key(trace_ids_get(&s->ids, e), s->ir_path, idx, uid, s->o->ro.device,
			       s->o->groups[g], s->o->ro.iters);
	int rc = 1;

	*deferred = false;
	if (!key) {
		cli_error("out of memory");
		return 1;
	}
	if (!claim(&s->claims, key, wait)) {
		*deferred = true;
		rc = 0;
		goto out;
	}
	if (refresh_done(s))
		goto unlock;
	if (measured(s, e, idx, g)) {	/* by another sweep, since we last read */
		s->skipped++;
		s->by_others++;
		rc = 0;
		goto unlock;
	}
	if (run_one(s, e, idx, s->o->groups[g], op_failed))
		goto unlock;
	s->ran++;
	s->failed += *op_failed;
	rc = 0;
unlock:
	claim_release(&s->claims, key);
out:
	free(key);
	return rc;
}

static int defer(struct sweep_run *s, cJSON *e, long idx, size_t g)
{
	struct deferred *n = realloc(s->later, (s->nlater + 1) * sizeof(*n));

	if (!n)
		return cli_error("out of memory");
	s->later = n;
	s->later[s->nlater++] = (struct deferred){ e, idx, g };
	return 0;
}

/* What other sweeps held when we came to it: theirs unless they stopped. */
static int run_deferred(struct sweep_run *s, bool tty)
{
	size_t i;

	for (i = 0; i < s->nlater; i++) {
		struct deferred *d = &s->later[i];
		bool op_failed = false, again;

		if (measured(s, d->entry, d->index, d->group)) {	/* its op failed meanwhile */
			s->skipped++;
			continue;
		}
		if (tty)
			fprintf(stderr, "\r\033[Ksweep: waiting for another sweep: %zu/%zu", i + 1, s->nlater);
		if (claim_and_run(s, d->entry, d->index, d->group, true, &op_failed, &again))
			return 1;
	}
	return 0;
}

static int run_all(struct sweep_run *s, cJSON *ops)
{
	size_t nops = (size_t)cJSON_GetArraySize(ops), g, total = 0, k = 0;
	bool tty = isatty(2);
	long idx = -1;
	cJSON *e;

	for (g = 0; g < nops; g++)
		if (!s->o->nshards || g % s->o->nshards == s->o->shard)
			total++;
	cJSON_ArrayForEach(e, ops) {
		const char *op = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "op_name"));
		bool op_failed = false;

		idx++;
		if (s->o->nshards && (unsigned long long)idx % s->o->nshards != s->o->shard)
			continue;
		k++;
		/* a failed replay fails under every group alike: recorded once */
		for (g = 0; g < s->o->ngroups && !op_failed; g++) {
			bool later;

			if (measured(s, e, idx, g)) {
				s->skipped++;
				continue;
			}
			if (tty)
				fprintf(stderr, "\r\033[Ksweep: op %zu/%zu, group %zu/%zu: %.50s %.40s", k, total,
					g + 1, s->o->ngroups, op ? op : "?", s->o->groups[g]);
			if (claim_and_run(s, e, idx, g, false, &op_failed, &later))
				goto fail;
			/* another sweep is on this op: its other groups wait too
			 * (if its replay fails there, it fails under every group) */
			for (; later && g < s->o->ngroups; g++)
				if (defer(s, e, idx, g))
					goto fail;
		}
	}
	if (run_deferred(s, tty))
		goto fail;
	if (tty)
		fputs("\r\033[K", stderr);
	return 0;
fail:
	if (tty)
		fputs("\n", stderr);
	return 1;
}

/* ------------------------------------------------------------------ results */

#define MAX_CTR 24

/* The sweep's results per op, merged over its event groups, read back from
 * the store (so that a resumed sweep reports what earlier runs measured). */
struct collect {
	const struct sweep_opts *o;
	struct sweep_run *s;
	cJSON *ops;
	size_t nops;
	struct chart_op *rows;
	struct chart_counter *ctr;	/* nops * MAX_CTR */
	char **names;			/* event names, owned */
	char **labels;			/* 2 per op: label, shapes; owned */
	size_t nnames;
};

static const char *intern(struct collect *c, const char *ev)
{
	size_t i;
	char **nn;

	for (i = 0; i < c->nnames; i++)
		if (!strcmp(c->names[i], ev))
			return c->names[i];
	nn = realloc(c->names, (c->nnames + 1) * sizeof(*nn));
	if (!nn)
		return NULL;
	c->names = nn;
	c->names[c->nnames] = strdup(ev);
	return c->names[c->nnames] ? c->names[c->nnames++] : NULL;
}

/* Whether record @rec measured op @i of the sweep. */
static bool same_op(struct collect *c, size_t i, const cJSON *rec)
{
	const cJSON *e = cJSON_GetArrayItem(c->ops, (int)i);
	const char *sig = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(trace_ids_get(&c->s->ids, e), "sig"));
	const char *rsig = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "trace"), "sig"));
	const cJSON *uid = cJSON_GetObjectItemCaseSensitive(e, "uid");
	const cJSON *ruid = cJSON_GetObjectItemCaseSensitive(rec, "uid");
	const cJSON *ir = cJSON_GetObjectItemCaseSensitive(rec, "ir");

	if (sig && rsig && cJSON_IsNumber(uid) && cJSON_IsNumber(ruid))
		return !strcmp(sig, rsig) && uid->valuedouble == ruid->valuedouble;
	return c->s->ir_path && ir &&
	       rec_long(cJSON_GetObjectItemCaseSensitive(ir, "index")) == (long)i;
}

static int collect_rec(const cJSON *rec, size_t line, void *ctx)
{
	struct collect *c = ctx;
	const char *cmd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "command"));
	const char *dev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "device"));
	const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "status"));
	const cJSON *ctr;
	size_t i, k;

	(void)line;
	if (!cmd || strcmp(cmd, "sweep") || !dev || strcmp(dev, c->o->ro.device) || !st || strcmp(st, "ok"))
		return 0;
	for (i = 0; i < c->nops; i++) {
		struct chart_counter *cc = c->ctr + i * MAX_CTR;

		if (!same_op(c, i, rec))
			continue;
		/* later records overwrite earlier ones: the store is in time order */
		c->rows[i].replay_us = cJSON_GetNumberValue(
			cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "time_us"), "median"));
		cJSON_ArrayForEach(ctr, cJSON_GetObjectItemCaseSensitive(rec, "counters")) {
			const char *ev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctr, "event"));
			const char *unit = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctr, "unit"));
			const cJSON *pc = cJSON_GetObjectItemCaseSensitive(ctr, "per_call");
			char label[160];

			if (!ev)
				continue;
			snprintf(label, sizeof(label), "%s%s%s%s", ev, unit && *unit ? " (" : "",
				 unit && *unit ? unit : "", unit && *unit ? ")" : "");
			if (!(ev = intern(c, label)))
				continue;
			for (k = 0; k < c->rows[i].nctr && cc[k].event != ev; k++)
				;
			if (k == c->rows[i].nctr) {
				if (k == MAX_CTR)
					continue;
				cc[k].event = ev;
				c->rows[i].nctr++;
			}
			cc[k].per_call = cJSON_IsNumber(pc) ? pc->valuedouble : NAN;
		}
	}
	return 0;
}

/* "[141, 512] x [512, 512] c10::BFloat16": the tensor shapes of an entry. */
static char *shapes_of(const cJSON *entry)
{
	const cJSON *ir = cJSON_GetObjectItemCaseSensitive(entry, "replay_ir"), *a, *x;
	const char *dtype = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool first = true;

	if (!f)
		return NULL;
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(ir, "list_pos_args")) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, "value");
		const cJSON *shape = cJSON_GetObjectItemCaseSensitive(v, "shape");
		bool firstd = true;

		if (!cJSON_IsArray(shape))
			continue;
		fputs(first ? "[" : " x [", f);
		cJSON_ArrayForEach(x, shape) {
			fprintf(f, "%s%.0f", firstd ? "" : ",", x->valuedouble);
			firstd = false;
		}
		fputc(']', f);
		if (!dtype)
			dtype = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "dtype"));
		first = false;
	}
	if (dtype)
		fprintf(f, " %s", dtype);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int collect_results(struct collect *c)
{
	const char *store = c->o->ro.store ? c->o->ro.store : tl_store_default_path();
	const cJSON *e;
	size_t i = 0;
	int err;

	c->nops = (size_t)cJSON_GetArraySize(c->ops);
	c->rows = calloc(c->nops + 1, sizeof(*c->rows));
	c->ctr = calloc((c->nops + 1) * MAX_CTR, sizeof(*c->ctr));
	c->labels = calloc(2 * c->nops + 1, sizeof(*c->labels));
	if (!c->rows || !c->ctr || !c->labels)
		return cli_error("out of memory");
	cJSON_ArrayForEach(e, c->ops) {
		struct chart_op *r = &c->rows[i];
		const char *op = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "op_name"));
		const cJSON *uid = cJSON_GetObjectItemCaseSensitive(e, "uid");
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(e, "gpu_time_us");
		double fl, by;

		if (cJSON_IsNumber(uid) && asprintf(&c->labels[2 * i], "%s (uid %.0f)", op ? op : "?", uid->valuedouble) < 0)
			c->labels[2 * i] = NULL;
		else if (!cJSON_IsNumber(uid))
			c->labels[2 * i] = strdup(op ? op : "?");
		c->labels[2 * i + 1] = shapes_of(e);
		r->label = c->labels[2 * i] ? c->labels[2 * i] : "?";
		r->detail = c->labels[2 * i + 1];
		r->device = c->o->ro.device;
		r->replay_us = NAN;
		r->trace_gpu_us = cJSON_IsNumber(g) ? g->valuedouble : NAN;
		r->flops = r->bytes = NAN;
		if (!tl_ir_flops(e, &fl, &by)) {
			r->flops = fl;
			r->bytes = by;
		}
		r->ctr = c->ctr + i * MAX_CTR;
		i++;
	}
	cli_note_input(store);
	err = tl_store_read(store, collect_rec, c, NULL);
	if (err && err != -ENOENT)
		return cli_lib_error(err);
	return 0;
}

static void collect_free(struct collect *c)
{
	size_t i;

	for (i = 0; c->labels && i < 2 * c->nops; i++)
		free(c->labels[i]);
	for (i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->labels);
	free(c->names);
	free(c->rows);
	free(c->ctr);
}

/* The summary on stdout: one line per op, the counters per call after it. */
static void print_summary(const struct collect *c)
{
	size_t i, k;
	char a[32], b[32];

	printf("%-44s %12s %12s  %s\n", "op", "replay", "trace GPU", "shapes");
	for (i = 0; i < c->nops; i++) {
		const struct chart_op *r = &c->rows[i];

		if (isnan(r->replay_us))
			snprintf(a, sizeof(a), "-");
		else
			fmt_us(a, sizeof(a), r->replay_us);
		if (isnan(r->trace_gpu_us))
			snprintf(b, sizeof(b), "-");
		else
			fmt_us(b, sizeof(b), r->trace_gpu_us);
		printf("%-44.44s %12s %12s  %s\n", r->label, a, b, r->detail ? r->detail : "");
		for (k = 0; k < r->nctr; k++)
			if (!isnan(r->ctr[k].per_call))
				printf("    %-40s %14.6g per call\n", r->ctr[k].event, r->ctr[k].per_call);
	}
}

/* ------------------------------------------------------------------ the command */

/* Fold into -o: the trace already loaded when the ops came from it, else
 * the one the IR's entries name. */
static int fold_results(const struct sweep_opts *o, struct tl_trace *tr, const char *trace, const char *store)
{
	struct common_opts co = o->co;
	const char *stores[] = { store };

	co.input = trace;
	co.output = o->folded;
	return fold_into(&co, tr, stores, 1);
}

static int cmd_sweep(int argc, char **argv)
{
	struct sweep_opts o = { 0 };
	struct done_set done = { 0 };
	struct sweep_run s = { .o = &o, .done = &done, .claims = { .fd = -1 } };
	struct collect col = { .o = &o, .s = &s };
	struct tl_trace *tr = NULL;
	cJSON *ops = NULL;
	const char *trace = NULL;
	int rc = 1, err;

	sweep_defaults(&o);
	if (!opts_parse(&sweep_cmd, argc, argv, &o, &rc) || check_sweep(argc, argv, &o))
		goto out;
	s.ir_path = optind < argc ? argv[optind] : NULL;
	s.store = o.ro.store ? o.ro.store : tl_store_default_path();
	if (!s.store) {
		cli_error("sweep: no results store: give --store FILE or set TLREPLAY_STORE");
		goto out;
	}
	if (load_ops(&o, s.ir_path, &tr, &s.w, &ops))
		goto out;
	trace = tr ? tl_trace_path(tr) : NULL;
	done.retry_failed = o.retry_failed;
	cli_note_input(s.store);
	/* refused now, not after the measurements: -o over the store or the trace */
	if (o.folded && cli_check_output(o.folded))
		goto out;
	err = tl_store_read_from(s.store, &s.claims.pos, note_done, &done, NULL);
	if (err && err != -ENOENT) {
		cli_lib_error(err);
		goto out;
	}
	/* the worker that read the schemas replays too */
	if ((!s.w && replay_worker(&o.ro, &s.w)) || replay_check_device(&o.ro, s.w))
		goto out;
	claims_open(&s.claims, s.store);
	if (run_all(&s, ops))
		goto out;
	fprintf(stderr, "tlreplay: sweep: %zu ops x %zu event groups: %zu measured, %zu already in %s",
		(size_t)cJSON_GetArraySize(ops), o.ngroups, s.ran, s.skipped, s.store);
	if (s.by_others)
		fprintf(stderr, " (%zu of them by a sweep running beside this one)", s.by_others);
	fprintf(stderr, ", %zu failed%s\n", s.failed,
		s.failed ? " (each named above, with why; --retry-failed runs them again)" : "");
	col.ops = ops;
	if (collect_results(&col))
		goto out;
	print_summary(&col);
	rc = 0;
	if (o.chart) {
		struct chart_opts co = { .title = "tlreplay sweep", .peak_gflops = o.peak_gflops,
					 .peak_gbs = o.peak_gbs };
		const char *torch = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tl_worker_hello(s.w), "torch"));
		char sub[768], day[32];
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(day, sizeof(day), "%Y-%m-%d", &tm);
		snprintf(sub, sizeof(sub), "%s on %s (torch %s), %lld calls per region, %s",
			 trace ? trace : s.ir_path, o.ro.device, torch ? torch : "?", (long long)o.ro.iters, day);
		co.subtitle = sub;
		if (chart_write(o.chart, col.rows, col.nops, &co))
			rc = 1;
	}
	if (o.folded) {
		if (!trace && cJSON_GetArraySize(ops))
			trace = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ops, 0), "source"), "trace"));
		if (!trace)
			rc = cli_error("sweep: -o: which trace to fold into? (give -i TRACE)");
		else if (fold_results(&o, tr, trace, s.store))
			rc = 1;
	}
out:
	if (s.claims.fd >= 0)
		close(s.claims.fd);
	free(s.later);
	collect_free(&col);
	done_free(&done);
	trace_ids_free(&s.ids);
	replay_worker_stop(s.w);
	cJSON_Delete(ops);
	tl_trace_close(tr);
	opt_strings_free(&o.events);
	return rc;
}

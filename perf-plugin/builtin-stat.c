/* SPDX-License-Identifier: MIT */
/* tlreplay stat: perf stat around the timed replay of one op. The counters
 * are opened on the worker's threads when it reports region_begin (after the
 * arguments are built and the warm-up calls ran) and read at region_end, so
 * start-up, tensor construction and warm-up are never counted. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "stat/kreplay-run.h"
#include "replay/replay-common.h"
#include "replay/results.h"
#include "stat/stat-format.h"
#include "stat/stat-run.h"

struct stat_opts {
	struct common_opts co;
	struct replay_opts ro;
	char *events;			/* -e, joined with ',' */
	struct count_opts cnt;		/* -r, --no-scale */
	bool per_call;			/* --per-call: -x gets perf's metric-only rows per call */
};

static int opt_event(const struct opt *opt, const char *ev, void *obj)
{
	struct stat_opts *o = obj;
	size_t old = o->events ? strlen(o->events) : 0;
	char *n = realloc(o->events, old + strlen(ev) + 2);

	(void)opt;
	if (!n)
		return cli_error("out of memory");
	if (old)
		n[old++] = ',';
	strcpy(n + old, ev);
	o->events = n;
	return 0;
}

#define CO offsetof(struct stat_opts, co)
#define RO offsetof(struct stat_opts, ro)
#define CNT offsetof(struct stat_opts, cnt)

/* The replay options as uid's, but -r is perf's repeat here and the help is
 * about one counted region. */
static const struct opt stat_opts_table[] = {
	OPT_CALLBACK('e', "event", "EVENTS", opt_event, 0,
		     "events as perf takes them: cycles,instructions, {a,b} groups,\n"
		     ":u/:k modifiers, pmu/event=0x3c/, rNNNN, libpfm4 names\n"
		     "(default: perf stat's default set); GPU metrics as ncu names\n"
		     "them, nvgpu/dram__bytes_read.sum/ (CUPTI, per call), and the\n"
		     "GPU's energy, nvml/energy-gpu0/ (NVML, Joules)"),
	OPT_USE(opts_count, CNT, "repeat", NULL),
	OPT_USE_AS(opts_replay, RO, "iters", NULL, "timed calls in one region (default 100)", OPT_NOSHORT),
	OPT_USE(opts_count, CNT, "no-scale", NULL),
	OPT_USE(opts_trace_input, CO, "input", TRACE_INPUT_HELP_BRIEF),
	OPT_USE(opts_output_format, CO, "field-separator", "separated values in perf stat -x's field order"),
	OPT_USE(opts_output_format, CO, "json", "one JSON object per event, with perf stat -j's keys"),
	OPT_USE(opts_output_format, CO, "output", "write to FILE (atomically) instead of stderr"),
	OPT_BOOL(0, "per-call", struct stat_opts, per_call,
		 "with -x: after each counter, a metric-only row (earlier fields\n"
		 "empty, as perf writes them) with its value per call"),
	OPT_HELP(),
	OPT_USE(opts_trace_input, CO, "capture", NULL),
	OPT_USE(opts_replay, RO, "warmup", NULL),
	OPT_USE(opts_replay, RO, "min-time", NULL),
	OPT_USE(opts_replay, RO, "device", NULL),
	OPT_USE(opts_replay, RO, "flush-l2", NULL),
	OPT_USE(opts_replay, RO, "cuda-graph", "CUDA: capture the op in a graph and time its replays"),
	OPT_USE(opts_replay, RO, "seed", NULL),
	OPT_USE(opts_replay, RO, "init-plugin", "custom initializers (repeatable)"),
	OPT_USE(opts_replay, RO, "init-kwargs", "options for the initializers"),
	OPT_USE(opts_replay, RO, "python", NULL),
	OPT_USE(opts_replay, RO, "schemas", "match op schemas against this snapshot"),
	OPT_USE(opts_replay, RO, "timeout", "give up on one run after S seconds (default 600)"),
	OPT_USE(opts_replay, RO, "namespace", "import MOD (a module or a FILE.py) for the ops of NS"),
	OPT_USE(opts_replay, RO, "alias", "replay OP as OTHER when this torch lacks OP"),
	OPT_USE(opts_replay, RO, "control", "also drive perf stat's control channel"),
	OPT_USE(opts_replay, RO, "store", NULL),
	OPT_USE(opts_replay, RO, "no-store", NULL),
	OPT_USE(opts_replay, RO, "verbose", "worker messages, tracebacks"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(stat, stat_opts_table, "perf stat over the timed replay of one op",
	"usage: tlreplay stat [-e EVENTS] [-r N] [-x SEP | -j] [-o FILE] [options] uid UID\n"
	"       tlreplay stat [-e EVENTS] [-r N] [-x SEP | -j] [-o FILE] [options] kreplay DB [N]\n"
	"\n"
	"Count hardware and software events (perf_event_open) over the timed replay of one op\n"
	"only: the counters open on the replay worker's threads after its arguments are built\n"
	"and its warm-up calls ran, and close when the timed calls end. Output as perf stat's:\n"
	"the human table (on stderr, as perf), -x SEP with perf's field order and one row per\n"
	"counter (--per-call adds the values per call), -j with perf's keys and per-call. With -r N the region runs N times and each counter\n"
	"gets perf's noise figure. Results go to the results store (see `tlreplay fold`).\n"
	"`kreplay DB [N]` counts over the timed launches of a recorded kernel launch instead\n"
	"(tlreplay record; N: which launch of the database, needed when it holds several).\n"
	"\n");
/* clang-format on */

/* What stat's arguments must be besides its options. Returns 0, or 1 after
 * printing why. */
static int check_stat(int argc, char **argv, struct stat_opts *o)
{
	if (cli_check_format("stat", &o->co))
		return 1;
	if (argc - optind >= 2 && !strcmp(argv[optind], "kreplay") && argc - optind <= 3) {
		if (o->co.input || o->ro.cuda_graph || o->ro.nplugins || o->ro.control)
			return cli_error("stat: kreplay replays a recorded launch: -i, --cuda-graph, --init-plugin "
					 "and --control are for uid");
	} else if (argc - optind != 2 || strcmp(argv[optind], "uid")) {
		return cli_error("stat: what to count? usage: tlreplay stat [-e EVENTS] [-r N] uid UID | kreplay DB [N]");
	}
	return stat_check_events(o->events);
}

static void print_report(FILE *f, const struct stat_opts *o, const struct stat_report *rep)
{
	if (o->co.json)
		stat_print_json(f, rep);
	else if (o->co.sep)
		stat_print_csv(f, rep, o->co.sep, o->per_call);
	else
		stat_print_human(f, rep);
}

static int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { 0 };
	struct uid_job job = { 0 };
	struct stat_report rep = { 0 };
	struct perf_ctl pc = { .ctl = -1, .ack = -1 };
	struct result_src src = { 0 };
	struct out_fmt out = { 0 };
	cJSON *reply = NULL, *rec = NULL;
	char what[64];
	int rc = 1, err;

	replay_opts_init(&o.ro);
	o.cnt.cmd = "stat";
	o.cnt.repeat = 1;
	if (!opts_parse(&stat_cmd, argc, argv, &o, &rc) || check_stat(argc, argv, &o)) {
		free(o.events);
		return rc;
	}
	if (!strcmp(argv[optind], "kreplay")) {
		struct kreplay_stat_req *q = calloc(1, sizeof(*q));
		const char *dev = o.ro.device;

		if (!q) {
			rc = cli_error("out of memory");
			goto out;
		}
		*q = (struct kreplay_stat_req){ .db = argv[optind + 1], .launch = argv[optind + 2], .events = o.events,
						.store = o.ro.store, .runs = o.cnt.repeat,
						.repeat_given = o.cnt.repeat_given, .no_scale = o.cnt.no_scale,
						.flush_l2 = o.ro.flush_l2, .no_store = o.ro.no_store, .iters = o.ro.iters,
						.warmup = o.ro.warmup,
						.device = !strncmp(dev, "cuda:", 5) ? atoi(dev + 5) : 0 };
		rc = kreplay_stat(q, &rep);
		if (!rc && o.co.output && out_open(&out, o.co.output))
			rc = 1;
		if (!rc) {
			print_report(o.co.output ? out.f : stderr, &o, &rep);
			rc = o.co.output ? out_close(&out, false) : fflush(stderr) ? 1 : 0;
		}
		free(q);
		goto out;
	}
	/* perf stat's -x and -j tables go to stderr: a line saying how long the replay
	 * takes would be a row no CSV or JSON reader expects */
	o.ro.quiet_plan = (o.co.sep || o.co.json) && !o.co.output;
	if (perf_ctl_setup(&pc, o.ro.control))
		goto out;
	if (uid_job_prepare(&job, &o.co, &o.ro, "stat", argv[optind + 1]))
		goto out;
	snprintf(what, sizeof(what), "tlreplay uid %llu", job.uid);
	rep.what = what;
	rep.op = job.name;
	rep.device = o.ro.device;
	rep.repeat = o.cnt.repeat_given;
	err = stat_run(&o.ro, job.w, job.entry, o.events, o.cnt.no_scale, o.cnt.repeat, &pc, &rep, &reply);
	if (err == STAT_RUN_REPLAY_FAILED)
		cli_error("stat: uid %llu (%s): replay %s: %s", job.uid, job.name, reply_status(reply),
			  cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(reply, "error")));
	if (err)
		goto out;
	if (o.co.output && out_open(&out, o.co.output))
		goto out;
	print_report(o.co.output ? out.f : stderr, &o, &rep);	/* perf stat writes to stderr */
	rc = o.co.output ? out_close(&out, false) : fflush(stderr) ? 1 : 0;
	src.trace_id = job.trace_id;
	rec = result_record("stat", &o.ro, job.w, job.entry, reply, &src);
	if (rec)
		cJSON_AddItemToObject(rec, "counters", stat_counters_json(&rep));
	if (result_store(&o.ro, rec))
		rc = 1;
out:
	cJSON_Delete(rec);
	cJSON_Delete(reply);
	stat_report_free(&rep);
	uid_job_done(&job);
	perf_ctl_close(&pc);
	free(o.events);
	return rc;
}

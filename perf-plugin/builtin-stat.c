/* SPDX-License-Identifier: MIT */
/* tlreplay stat: perf stat around the timed replay of one op. The counters
 * are opened on the worker's threads when it reports region_begin (after the
 * arguments are built and the warm-up calls ran) and read at region_end, so
 * start-up, tensor construction and warm-up are never counted. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "replay-common.h"
#include "results.h"
#include "stat-format.h"
#include "stat-run.h"

struct stat_opts {
	struct common_opts co;
	struct replay_opts ro;
	char *events;			/* -e, joined with ',' */
	unsigned long long repeat;	/* -r: runs of the region */
	bool repeat_given, no_scale;
};

static int add_event(struct stat_opts *o, const char *ev)
{
	size_t old = o->events ? strlen(o->events) : 0;
	char *n = realloc(o->events, old + strlen(ev) + 2);

	if (!n)
		return cli_error("out of memory");
	if (old)
		n[old++] = ',';
	strcpy(n + old, ev);
	o->events = n;
	return 0;
}

static int parse_stat(int argc, char **argv, struct stat_opts *o)
{
	struct option lopts[48];
	size_t n = 0, i;
	int c;
	static const struct option base[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "capture", required_argument, NULL, 0x100 },
		{ "event", required_argument, NULL, 'e' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "no-scale", no_argument, NULL, 0x101 },
		{ "iters", required_argument, NULL, 0x102 },
	};

	for (i = 0; i < TL_ARRAY_N(base); i++)
		lopts[n++] = base[i];
	for (i = 0; replay_long_opts[i].name; i++)
		if (strcmp(replay_long_opts[i].name, "iters"))	/* -r is perf's repeat here */
			lopts[n++] = replay_long_opts[i];
	memset(&lopts[n], 0, sizeof(lopts[n]));
	replay_opts_init(&o->ro);
	o->repeat = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:x:jo:he:r:v", lopts, NULL)) != -1) {
		int r;

		switch (c) {
		case 'i': o->co.input = optarg; continue;
		case 'x': o->co.sep = optarg; continue;
		case 'j': o->co.json = true; continue;
		case 'o': o->co.output = optarg; continue;
		case 0x100: o->co.capture = optarg; continue;
		case 'h': cmd_help_for("stat"); return -1;
		case 'e':
			if (add_event(o, optarg))
				return 1;
			continue;
		case 'r':
			if (!parse_u64(optarg, &o->repeat) || !o->repeat || o->repeat > 100)
				return cli_error("stat: -r: '%s' is not a number of runs from 1 to 100", optarg);
			o->repeat_given = true;
			continue;
		case 0x101: o->no_scale = true; continue;
		case 0x102:
			r = replay_opt(&o->ro, 'r', optarg);	/* timed calls per run */
			if (r)
				return 1;
			continue;
		case '?': return cmd_usage_error("stat");
		}
		r = replay_opt(&o->ro, c, optarg);
		if (r < 0)
			return 1;
		if (r)
			return cmd_usage_error("stat");
	}
	if (o->co.sep && o->co.json)
		return cli_error("stat: -x and -j are exclusive");
	if (argc - optind != 2 || strcmp(argv[optind], "uid"))
		return cli_error("stat: what to count? usage: tlreplay stat [-e EVENTS] [-r N] uid UID");
	return stat_check_events(o->events);
}

static void print_report(FILE *f, const struct stat_opts *o, const struct stat_report *rep)
{
	if (o->co.json)
		stat_print_json(f, rep);
	else if (o->co.sep)
		stat_print_csv(f, rep, o->co.sep);
	else
		stat_print_human(f, rep);
}

int cmd_stat(int argc, char **argv)
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

	err = parse_stat(argc, argv, &o);
	if (err) {
		free(o.events);
		return err < 0 ? 0 : err;
	}
	if (perf_ctl_setup(&pc, o.ro.control))
		goto out;
	if (uid_job_prepare(&job, &o.co, &o.ro, "stat", argv[optind + 1]))
		goto out;
	snprintf(what, sizeof(what), "tlreplay uid %llu", job.uid);
	rep.what = what;
	rep.op = job.name;
	rep.device = o.ro.device;
	rep.repeat = o.repeat_given;
	err = stat_run(&o.ro, job.w, job.entry, o.events, o.no_scale, o.repeat, &pc, &rep, &reply);
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

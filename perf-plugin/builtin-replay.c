/* SPDX-License-Identifier: MIT */
/* tlreplay replay: replay every op of an IR file. */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "replay/replay-common.h"
#include "replay/replay-print.h"
#include "stat/perf-control.h"
#include "replay/results.h"


static const struct opt replay_cmd_opts[] = {
	OPT_USE(opts_output_format, offsetof(struct ropts, co), "json", "one JSON object per entry"),
	OPT_USE(opts_output_format, offsetof(struct ropts, co), "output", NULL),
	OPT_HELP(),
	OPT_STRING(0, "op-filter", "SUBSTR", struct ropts, filter, "only entries whose op name contains SUBSTR"),
	OPT_U64(0, "op-limit", "N", struct ropts, limit, "at most N entries (after --op-filter)"),
	OPT_BOOL(0, "stop-on-error", struct ropts, stop_on_error, "stop at the first failed entry"),
	OPT_INCLUDE(opts_replay, offsetof(struct ropts, ro)),
	OPT_USE_AS(opts_trace_input, offsetof(struct ropts, co), "input", NULL, NULL, OPT_HIDDEN),
	OPT_USE_AS(opts_trace_input, offsetof(struct ropts, co), "capture", NULL, NULL, OPT_HIDDEN),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(replay, replay_cmd_opts, "replay every op of an IR file",
	"usage: tlreplay replay [-j] [-o FILE] [options] IR.json\n"
	"\n"
	"Replay every entry of an IR file (tlreplay's or TraceLens's) in a worker that is\n"
	"restarted when an op crashes it, and print a summary: entries, attempted, ok,\n"
	"failed, unavailable. With -j, one JSON object per entry with status ok | failed |\n"
	"unavailable and the reason. Exit status 1 when some entry failed.\n"
	"\n");
/* clang-format on */

static int cmd_replay(int argc, char **argv)
{
	struct ropts o = { 0 };
	struct tl_worker *w = NULL;
	struct out_fmt out = { 0 };
	struct perf_ctl pc = { .ctl = -1, .ack = -1 };
	struct region_hooks hooks = { .pc = &pc };
	struct trace_ids ids = { 0 };
	cJSON *doc = NULL, *e;
	size_t total = 0, selected = 0, torun, attempted = 0, nok = 0, nfail = 0, nunavail = 0, idx = 0;
	bool tty = isatty(2), store_failed = false;
	char place[48];
	int rc = 1;

	replay_opts_init(&o.ro);
	if (!opts_parse(&replay_cmd, argc, argv, &o, &rc))
		return rc;
	if (argc - optind != 1)
		return cli_error("replay: which IR file? usage: tlreplay replay IR.json");
	if (perf_ctl_setup(&pc, o.ro.control))
		return 1;
	doc = replay_read_ir(argv[optind]);
	if (!doc) {
		perf_ctl_close(&pc);
		return 1;
	}
	total = (size_t)cJSON_GetArraySize(doc);
	if (replay_worker(&o.ro, &w) || replay_check_device(&o.ro, w))
		goto out;
	if (out_open(&out, o.co.output))
		goto out;
	/* what will run, so that progress and numbering say "i of n" */
	cJSON_ArrayForEach(e, doc) {
		const char *op = result_str(e, "op_name");

		if (!op || (o.filter && !strstr(op, o.filter)))
			continue;
		selected++;
	}
	torun = o.limit && o.limit < selected ? (size_t)o.limit : selected;
	if (!o.co.json) {
		const cJSON *h = tl_worker_hello(w);

		fprintf(out.f, "replaying %zu of %zu entries of %s on %s (torch %s, %s)\n", torun, total,
			argv[optind], o.ro.device, result_str(h, "torch") ? result_str(h, "torch") : "?",
			tl_worker_python(w));
	}
	cJSON_ArrayForEach(e, doc) {
		const char *op = result_str(e, "op_name");
		cJSON *reply;

		idx++;
		if (!op || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(e, "replay_ir"))) {
			cli_error("%s: entry %zu is not a replay IR entry (no op_name/replay_ir)", argv[optind],
				  idx - 1);
			nfail++;
			attempted++;
			continue;
		}
		if (o.filter && !strstr(op, o.filter))
			continue;
		if (attempted >= torun)
			break;
		attempted++;
		snprintf(place, sizeof(place), "[%zu/%zu]", attempted, torun);
		o.ro.progress = place; /* the plan's progress line: "[12/86] aten::mm: 14 calls, about 3.1 s" */
		if (tty && !o.co.json)
			fprintf(stderr, "\r\033[K%s %.60s", place, op);
		reply = replay_one(&o.ro, w, e, replay_region_cb, &hooks);
		o.ro.progress = NULL;
		if (tty && !o.co.json)
			fputs("\r\033[K", stderr);
		if (!reply) {
			rc = cli_error("out of memory");
			goto out;
		}
		if (!o.ro.no_store && !store_failed) {
			struct result_src src = { .trace_id = trace_ids_get(&ids, e), .ir_path = argv[optind],
						  .ir_index = (long)idx - 1 };
			cJSON *rec = result_record("replay", &o.ro, w, e, reply, &src);

			store_failed = result_store(&o.ro, rec) != 0;	/* said once, then not again */
			cJSON_Delete(rec);
		}
		if (!strcmp(reply_status(reply), "ok"))
			nok++;
		else if (!strcmp(reply_status(reply), "unavailable"))
			nunavail++;
		else
			nfail++;
		if (o.co.json) {
			print_result_json(out.f, &o.ro, e, reply, idx - 1);
		} else {
			fprintf(out.f, "[%zu/%zu] %s", attempted, torun, op);
			if (cJSON_GetObjectItemCaseSensitive(e, "uid"))
				fprintf(out.f, " (UID %.0f)", result_num(e, "uid"));
			fputc('\n', out.f);
			if (o.ro.verbose)
				print_args(out.f, e);
			print_result(out.f, &o.ro, e, reply, w, false);
		}
		cJSON_Delete(reply);
		/* each result as it comes: a reader of a pipe (a script's, the GPU
		 * check's, `| tee`) that stops the batch keeps what was done */
		fflush(out.f);
		if (o.stop_on_error && nfail)
			break;
		if (!tl_worker_alive(w)) {
			rc = cli_error("replay: the worker could not be restarted: %s", tl_last_error());
			goto out;
		}
	}
	if (!o.co.json) {
		char label[96];

		fprintf(out.f, "\n--- replay summary ---\n");
		fprintf(out.f, "%-24s %zu\n", "entries in file", total);
		if (o.filter) {
			snprintf(label, sizeof(label), "matching '%.60s'", o.filter);
			fprintf(out.f, "%-24s %zu\n", label, selected);
		}
		fprintf(out.f, "%-24s %zu\n", "attempted", attempted);
		fprintf(out.f, "%-24s %zu\n", "ok", nok);
		fprintf(out.f, "%-24s %zu\n", "failed", nfail);
		fprintf(out.f, "%-24s %zu\n", "unavailable", nunavail);
	}
	rc = out_close(&out, false);
	if (o.co.json)
		fprintf(stderr, "tlreplay: replay: %zu entries, %zu attempted: %zu ok, %zu failed, "
			"%zu unavailable\n", total, attempted, nok, nfail, nunavail);
	if (!rc && (nfail || store_failed))
		rc = 1;
out:
	replay_worker_stop(w);
	trace_ids_free(&ids);
	perf_ctl_close(&pc);
	cJSON_Delete(doc);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* tlreplay ir / uid / replay: extract ops as replay IR and replay them. */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "replay/replay-common.h"
#include "stat/perf-control.h"
#include "replay/results.h"

/* Options of uid and replay: the trace's (replay takes them too, and does
 * nothing with them), the output's and the replay ones. */
struct ropts {
	struct common_opts co;
	struct replay_opts ro;
	/* replay */
	const char *filter;		/* --op-filter */
	unsigned long long limit;	/* --op-limit */
	bool stop_on_error;
};

static void print_value(FILE *f, const cJSON *v)
{
	const cJSON *shape = cJSON_GetObjectItemCaseSensitive(v, "shape");

	if (cJSON_IsObject(v) && shape) {
		const cJSON *dt = cJSON_GetObjectItemCaseSensitive(v, "dtype"), *x;
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(v, "strides");
		bool first = true;

		fputs("Tensor[", f);
		cJSON_ArrayForEach(x, shape) {
			fprintf(f, "%s%.0f", first ? "" : ", ", x->valuedouble);
			first = false;
		}
		fprintf(f, "] %s", cJSON_IsString(dt) ? dt->valuestring : "?");
		if (cJSON_IsArray(st)) {
			char *s = cJSON_PrintUnformatted(st);

			fprintf(f, " strides %s", s ? s : "?");
			free(s);
		}
	} else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) &&
		   cJSON_IsObject(cJSON_GetArrayItem(v, 0))) {
		const cJSON *x;
		bool first = true;

		fputs("[", f);
		cJSON_ArrayForEach(x, v) {
			if (!first)
				fputs(", ", f);
			print_value(f, x);
			first = false;
		}
		fputs("]", f);
	} else {
		char *s = cJSON_PrintUnformatted(v);

		fputs(s ? s : "?", f);
		free(s);
	}
}

static void print_args(FILE *f, const cJSON *entry)
{
	const cJSON *ir = cJSON_GetObjectItemCaseSensitive(entry, "replay_ir");
	const char *lists[] = { "list_pos_args", "list_kwargs" };
	size_t l, width = 0;
	const cJSON *a;

	for (l = 0; l < 2; l++)
		cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(ir, lists[l])) {
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(a, "arg_name");

			if (cJSON_IsString(n) && strlen(n->valuestring) > width)
				width = strlen(n->valuestring);
		}
	for (l = 0; l < 2; l++)
		cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(ir, lists[l])) {
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(a, "arg_name");

			fprintf(f, "  %s %-*s = ", l ? "kw " : "arg", (int)width,
				cJSON_IsString(n) ? n->valuestring : "?");
			print_value(f, cJSON_GetObjectItemCaseSensitive(a, "value"));
			fputc('\n', f);
		}
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(x) ? x->valuestring : NULL;
}

/* The result of one replay, human-readable. */
static void print_result(FILE *f, const struct replay_opts *ro, const cJSON *entry,
			 const cJSON *reply, const struct tl_worker *w, bool show_device)
{
	const char *st = reply_status(reply), *verdict;
	const cJSON *h = tl_worker_hello(w);
	struct tl_stats s;
	char b[32];

	if (show_device)
		fprintf(f, "  device %s (torch %s, %s)\n", ro->device,
			str(h, "torch") ? str(h, "torch") : "?", tl_worker_python(w));
	{
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(entry, "unrecorded_args"), *x;
		bool first = true;

		if (cJSON_GetArraySize(u)) {
			fputs("  note   not in the profile, so defaults or guesses stand in:", f);
			cJSON_ArrayForEach(x, u)
				if (cJSON_IsString(x)) {
					fprintf(f, "%s %s", first ? "" : ",", x->valuestring);
					first = false;
				}
			fputc('\n', f);
		}
	}
	if (strcmp(st, "ok")) {
		fprintf(f, "  %s: %s\n", st, str(reply, "error") ? str(reply, "error") : "(no reason given)");
		return;
	}
	reply_stats(reply, &s);
	{
		/* one unit for all five, the one that suits the median */
		double k = s.median >= 1e6 ? 1e-6 : s.median >= 1e3 ? 1e-3 : 1;
		const char *u = k == 1 ? "us" : k == 1e-3 ? "ms" : "s";

		fprintf(f, "  time   median %.3f %s  mean %.3f  std %.3f  min %.3f  max %.3f %s"
			"  (%zu timed calls after %ld warm-up)\n", s.median * k, u, s.mean * k,
			s.n > 1 ? s.std * k : 0.0, s.min * k, s.max * k, u, s.n, ro->warmup);
	}
	if (str(reply, "result"))
		fprintf(f, "  result %s\n", str(reply, "result"));
	{
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(reply, "init"), *x;

		cJSON_ArrayForEach(x, in)
			if (cJSON_IsString(x))
				fprintf(f, "  init   %s\n", x->valuestring);
	}
	if (!(num(entry, "gpu_time_us") > 0)) {
		/* an op that launched nothing on a GPU: nothing to compare with */
	} else if (!strncmp(ro->device, "cuda", 4)) {
		fmt_us(b, sizeof(b), num(entry, "gpu_time_us"));
		fprintf(f, "  trace  %s on the GPU: replay/trace = %.2f\n", b,
			s.median / num(entry, "gpu_time_us"));
		if (num(reply, "kernel_us") > 0) {
			/* the kernels alone, as the trace counts them: no launch gaps */
			fmt_us(b, sizeof(b), num(reply, "kernel_us"));
			fprintf(f, "  gpu    %s in the replay's kernels (one profiled call): replay/trace = %.2f\n",
				b, num(reply, "kernel_us") / num(entry, "gpu_time_us"));
		}
	} else {
		fmt_us(b, sizeof(b), num(entry, "gpu_time_us"));
		fprintf(f, "  trace  %s on the GPU (not comparable with a %s replay)\n", b, ro->device);
	}
	verdict = kernel_verdict(entry, reply);
	if (verdict) {
		const cJSON *x;

		fprintf(f, "  kernels %s\n", verdict);
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(reply, "kernels"))
			if (cJSON_IsString(x))
				fprintf(f, "    replay: %.120s\n", x->valuestring);
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(entry, "kernels"))
			if (str(x, "name"))
				fprintf(f, "    trace:  %.120s\n", str(x, "name"));
	}
}

/* The result as one JSON object (entry summary + reply + stats). */
static void print_result_json(FILE *f, const struct replay_opts *ro, const cJSON *entry,
			      const cJSON *reply, size_t index)
{
	cJSON *o = cJSON_CreateObject();
	const char *verdict = kernel_verdict(entry, reply);
	const cJSON *x;
	struct tl_stats s;
	char *txt;

	if (!o)
		return;
	if (index != (size_t)-1)
		cJSON_AddNumberToObject(o, "index", (double)index);
	if (str(entry, "op_name"))
		cJSON_AddStringToObject(o, "op", str(entry, "op_name"));
	if ((x = cJSON_GetObjectItemCaseSensitive(entry, "uid")))
		cJSON_AddItemToObject(o, "uid", cJSON_Duplicate(x, true));
	cJSON_AddStringToObject(o, "device", ro->device);
	if ((x = cJSON_GetObjectItemCaseSensitive(entry, "unrecorded_args")))
		cJSON_AddItemToObject(o, "unrecorded_args", cJSON_Duplicate(x, true));
	cJSON_AddStringToObject(o, "status", reply_status(reply));
	if (!strcmp(reply_status(reply), "ok")) {
		reply_stats(reply, &s);
		cJSON_AddNumberToObject(o, "iters", (double)s.n);
		cJSON_AddNumberToObject(o, "median_us", s.median);
		cJSON_AddNumberToObject(o, "mean_us", s.mean);
		cJSON_AddNumberToObject(o, "std_us", s.std);
		cJSON_AddNumberToObject(o, "min_us", s.min);
		cJSON_AddNumberToObject(o, "max_us", s.max);
		if (isfinite(num(entry, "gpu_time_us")))
			cJSON_AddNumberToObject(o, "trace_gpu_us", num(entry, "gpu_time_us"));
		if (verdict)
			cJSON_AddStringToObject(o, "kernels_vs_trace", verdict);
	}
	{
		static const char *const keep[] = { "kind", "error", "result", "args", "kernels",
						     "kernel_us", "init", "warnings", "op" };
		size_t k;

		for (k = 0; k < TL_ARRAY_N(keep); k++)
			if ((x = cJSON_GetObjectItemCaseSensitive(reply, keep[k])) &&
			    !cJSON_GetObjectItemCaseSensitive(o, keep[k]))
				cJSON_AddItemToObject(o, keep[k], cJSON_Duplicate(x, true));
	}
	txt = cJSON_PrintUnformatted(o);
	fprintf(f, "%s\n", txt ? txt : "{}");
	free(txt);
	cJSON_Delete(o);
}

/* ------------------------------------------------------------------ uid */

static const struct opt uid_opts[] = {
	OPT_INCLUDE(opts_nav, offsetof(struct ropts, co)),
	OPT_INCLUDE(opts_replay, offsetof(struct ropts, ro)),
	OPT_END(),
};

TL_CMD(uid, uid_opts, "replay one op of the trace alone and time it",
	"usage: tlreplay uid [-i TRACE] [-j] [-o FILE] [options] UID\n"
	"\n"
	"Replay one op of the trace alone: rebuild its arguments with the recorded shapes,\n"
	"strides and dtypes, run it --warmup times, then time -r calls (CPU clock on the CPU,\n"
	"CUDA events on a GPU) and print median, mean, std, min and max. On a GPU, the kernels\n"
	"the replay launched are compared with the trace's (MATCH, SUBSET or MISMATCH).\n"
	"Exit status 1 when the op cannot be replayed.\n"
	"\n");

static int cmd_uid(int argc, char **argv)
{
	struct ropts o = { 0 };
	struct uid_job job = { 0 };
	struct perf_ctl pc = { .ctl = -1, .ack = -1 };
	struct region_hooks hooks = { .pc = &pc };
	struct out_fmt out = { 0 };
	cJSON *reply = NULL, *rec = NULL;
	struct result_src src = { 0 };
	int rc = 1;

	replay_opts_init(&o.ro);
	if (!opts_parse(&uid_cmd, argc, argv, &o, &rc))
		return rc;
	if (argc - optind != 1)
		return cli_error("uid: which event? usage: tlreplay uid [-i TRACE] UID");
	if (perf_ctl_setup(&pc, o.ro.control))
		return 1;
	if (uid_job_prepare(&job, &o.co, &o.ro, "uid", argv[optind]))
		goto out;
	reply = replay_one(&o.ro, job.w, job.entry, replay_region_cb, &hooks);
	if (!reply) {
		rc = cli_error("out of memory");
		goto out;
	}
	src.trace_id = job.trace_id;
	rec = result_record("uid", &o.ro, job.w, job.entry, reply, &src);
	if (out_open(&out, o.co.output))
		goto out;
	if (o.co.json) {
		print_result_json(out.f, &o.ro, job.entry, reply, (size_t)-1);
	} else {
		fprintf(out.f, "UID %llu: %s%s\n", job.uid, job.name,
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(job.entry, "schemaless"))
				? " (no schema matched: types from the profile)"
				: "");
		if (str(job.entry, "schema"))
			fprintf(out.f, "  schema %s\n", str(job.entry, "schema"));
		if (str(job.entry, "schemaless_reason"))
			fprintf(out.f, "  why    %s\n", str(job.entry, "schemaless_reason"));
		print_args(out.f, job.entry);
		print_result(out.f, &o.ro, job.entry, reply, job.w, true);
	}
	rc = out_close(&out, false);
	if (result_store(&o.ro, rec))
		rc = 1;
	if (!rc && strcmp(reply_status(reply), "ok"))
		rc = 1;
	if (rc && !o.co.json && strcmp(reply_status(reply), "ok"))
		cli_error("uid %llu (%s): replay %s: %s", job.uid, job.name, reply_status(reply),
			  str(reply, "error") ? str(reply, "error") : "?");
out:
	cJSON_Delete(rec);
	cJSON_Delete(reply);
	uid_job_done(&job);
	perf_ctl_close(&pc);
	return rc;
}

/* ------------------------------------------------------------------ replay */

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

TL_CMD(replay, replay_cmd_opts, "replay every op of an IR file",
	"usage: tlreplay replay [-j] [-o FILE] [options] IR.json\n"
	"\n"
	"Replay every entry of an IR file (tlreplay's or TraceLens's) in a worker that is\n"
	"restarted when an op crashes it, and print a summary: entries, attempted, ok,\n"
	"failed, unavailable. With -j, one JSON object per entry with status ok | failed |\n"
	"unavailable and the reason. Exit status 1 when some entry failed.\n"
	"\n");

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
		const char *op = str(e, "op_name");

		if (!op || (o.filter && !strstr(op, o.filter)))
			continue;
		selected++;
	}
	torun = o.limit && o.limit < selected ? (size_t)o.limit : selected;
	if (!o.co.json) {
		const cJSON *h = tl_worker_hello(w);

		fprintf(out.f, "replaying %zu of %zu entries of %s on %s (torch %s, %s)\n", torun, total,
			argv[optind], o.ro.device, str(h, "torch") ? str(h, "torch") : "?",
			tl_worker_python(w));
	}
	cJSON_ArrayForEach(e, doc) {
		const char *op = str(e, "op_name");
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
		if (tty && !o.co.json)
			fprintf(stderr, "\r\033[K[%zu/%zu] %.60s", attempted, torun, op);
		reply = replay_one(&o.ro, w, e, replay_region_cb, &hooks);
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
				fprintf(out.f, " (UID %.0f)", num(e, "uid"));
			fputc('\n', out.f);
			if (o.ro.verbose)
				print_args(out.f, e);
			print_result(out.f, &o.ro, e, reply, w, false);
		}
		cJSON_Delete(reply);
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

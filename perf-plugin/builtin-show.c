/* SPDX-License-Identifier: MIT */
/* tlreplay show: one event by UID: its fields, its links up and down the
 * call tree, the GPU time below it. */
#include <cjson/cJSON.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/nav.h"

/* ------------------------------------------------------------------ show */

static void show_line(FILE *f, const struct tl_trace *tr, uint64_t uid, const char *prefix)
{
	struct tl_event_info e;
	char d[32] = "";

	tl_trace_event(tr, uid, &e);
	if (e.has_dur)
		fmt_us(d, sizeof(d), e.dur);
	fprintf(f, "%s%-9llu %-16.16s %-12s %.110s\n", prefix, (unsigned long long)uid,
		nav_kind_label(&e), d, e.name);
}

static double busy_us(const struct tl_trace *tr, const uint64_t *uids, size_t n)
{
	/* union of [ts, ts+dur): small lists, insertion sort is fine */
	double *s = malloc(n * sizeof(double) + 1), *en = malloc(n * sizeof(double) + 1);
	double busy = 0, cs = 0, ce = 0;
	size_t i, j;

	if (!s || !en) {
		free(s);
		free(en);
		return NAN;
	}
	for (i = 0; i < n; i++) {
		struct tl_event_info e;

		tl_trace_event(tr, uids[i], &e);
		s[i] = e.ts;
		en[i] = e.ts + e.dur;
		for (j = i; j > 0 && s[j - 1] > s[j]; j--) {
			double t = s[j];

			s[j] = s[j - 1];
			s[j - 1] = t;
			t = en[j];
			en[j] = en[j - 1];
			en[j - 1] = t;
		}
	}
	for (i = 0; i < n; i++) {
		if (i == 0 || s[i] > ce) {
			if (i)
				busy += ce - cs;
			cs = s[i];
			ce = en[i];
		} else if (en[i] > ce) {
			ce = en[i];
		}
	}
	if (n)
		busy += ce - cs;
	free(s);
	free(en);
	return busy;
}

static void show_json(FILE *f, struct tl_trace *tr, uint64_t uid)
{
	struct tl_event_info e;
	uint64_t *gpu = NULL, bwd[64];
	int64_t p, c, ng, fwd;
	size_t nb, i;
	bool first;
	cJSON *args = NULL;

	tl_trace_event(tr, uid, &e);
	fprintf(f, "{\"uid\":%llu,\"name\":", (unsigned long long)uid);
	json_str(f, e.name);
	fputs(",\"cat\":", f);
	json_str(f, e.cat);
	fprintf(f, ",\"ph\":\"%c\"", e.ph ? e.ph : '?');
	if (e.has_ts) {
		char b[64];

		fmt_pyfloat(b, sizeof(b), e.ts);
		fprintf(f, ",\"ts\":%s", b);
	}
	if (e.has_dur) {
		char b[64];

		fmt_pyfloat(b, sizeof(b), e.dur);
		fprintf(f, ",\"dur\":%s", b);
	}
	fputs(",\"pid\":", f);
	json_str(f, e.pid);
	fputs(",\"tid\":", f);
	json_str(f, e.tid);
	if (e.correlation != TL_NOID)
		fprintf(f, ",\"correlation\":%lld", (long long)e.correlation);
	if (e.external_id != TL_NOID)
		fprintf(f, ",\"external_id\":%lld", (long long)e.external_id);
	if (e.stream != TL_NOID)
		fprintf(f, ",\"stream\":%lld", (long long)e.stream);
	if (e.device != TL_NOID)
		fprintf(f, ",\"device\":%lld", (long long)e.device);
	fputs(",\"args\":", f);
	if (!tl_trace_event_args(tr, uid, &args) && args) {
		char *s = cJSON_PrintUnformatted(args);

		fputs(s ? s : "null", f);
		free(s);
		cJSON_Delete(args);
	} else {
		fputs("null", f);
	}
	fputs(",\"parents\":[", f);
	for (first = true, p = tl_event_parent(tr, uid); p >= 0; p = tl_event_parent(tr, (uint64_t)p)) {
		fprintf(f, "%s%lld", first ? "" : ",", (long long)p);
		first = false;
	}
	fputs("],\"children\":[", f);
	for (first = true, c = tl_event_first_child(tr, uid); c >= 0;
	     c = tl_event_next_sibling(tr, (uint64_t)c)) {
		fprintf(f, "%s%lld", first ? "" : ",", (long long)c);
		first = false;
	}
	fputs("]", f);
	ng = tl_event_gpu_events(tr, uid, &gpu);
	fputs(",\"gpu_events\":[", f);
	for (i = 0; ng > 0 && i < (size_t)ng; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)gpu[i]);
	fputs("]", f);
	if (ng > 0) {
		char b[64];

		fmt_pyfloat(b, sizeof(b), busy_us(tr, gpu, (size_t)ng));
		fprintf(f, ",\"gpu_busy_us\":%s", b);
	}
	free(gpu);
	if (tl_kind_is_gpu(e.kind)) {
		fprintf(f, ",\"linked\":%s,\"launcher\":%lld", tl_event_linked(tr, uid) ? "true" : "false",
			(long long)tl_event_launcher(tr, uid));
	}
	fwd = tl_event_fwd(tr, uid);
	if (fwd >= 0)
		fprintf(f, ",\"fwd\":%lld", (long long)fwd);
	nb = tl_event_bwd(tr, uid, bwd, TL_ARRAY_N(bwd));
	if (nb) {
		fputs(",\"bwd\":[", f);
		for (i = 0; i < nb && i < TL_ARRAY_N(bwd); i++)
			fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)bwd[i]);
		fputs("]", f);
	}
	fputs("}\n", f);
}

static void show_human(FILE *f, struct tl_trace *tr, uint64_t uid)
{
	struct tl_event_info e;
	uint64_t *gpu = NULL, bwd[16];
	int64_t p, c, ng, fwd, depth = 0, nchild = 0;
	size_t nb, i;
	cJSON *args = NULL;
	char d[32];

	tl_trace_event(tr, uid, &e);
	fprintf(f, "UID %llu: %s\n", (unsigned long long)uid, e.name);
	fprintf(f, "  cat %s (%s), ph %c, pid %s, tid %s\n", *e.cat ? e.cat : "-",
		tl_kind_name(e.kind), e.ph ? e.ph : '?', *e.pid ? e.pid : "-", *e.tid ? e.tid : "-");
	if (e.has_ts) {
		fmt_us(d, sizeof(d), e.dur);
		fprintf(f, "  ts %.3f us, dur %s\n", e.ts, e.has_dur ? d : "-");
	}
	if (!tl_trace_event_args(tr, uid, &args) && args) {
		char *s = cJSON_Print(args);
		char *line, *save = NULL;

		fputs("  args:\n", f);
		for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			/* cJSON indents with tabs: two spaces read better in a terminal */
			fputs("    ", f);
			for (; *line == '\t'; line++)
				fputs("  ", f);
			for (; *line; line++)
				fputc(*line == '\t' ? ' ' : *line, f);
			fputc('\n', f);
		}
		free(s);
		cJSON_Delete(args);
	}
	if (tl_event_parent(tr, uid) >= 0) {
		fputs("  call stack (innermost first):\n", f);
		for (p = tl_event_parent(tr, uid); p >= 0 && depth < 64;
		     p = tl_event_parent(tr, (uint64_t)p), depth++)
			show_line(f, tr, (uint64_t)p, "    ");
	} else if (!tl_event_in_tree(tr, uid)) {
		fputs("  not in the call tree (only cpu_op, runtime and driver events, and linked GPU events are)\n",
		      f);
	} else {
		fputs("  a root of the call tree\n", f);
	}
	for (c = tl_event_first_child(tr, uid); c >= 0; c = tl_event_next_sibling(tr, (uint64_t)c))
		nchild++;
	if (nchild) {
		fprintf(f, "  children (%lld):\n", (long long)nchild);
		for (c = tl_event_first_child(tr, uid), i = 0; c >= 0 && i < 40;
		     c = tl_event_next_sibling(tr, (uint64_t)c), i++)
			show_line(f, tr, (uint64_t)c, "    ");
		if (nchild > 40)
			fprintf(f, "    ... %lld more\n", (long long)nchild - 40);
	}
	if (tl_kind_is_gpu(e.kind)) {
		int64_t l = tl_event_launcher(tr, uid);

		if (!tl_event_linked(tr, uid)) {
			fputs("  not linked to a CPU launch (no runtime call with its correlation id)\n", f);
		} else {
			fputs("  launched by:\n", f);
			show_line(f, tr, (uint64_t)tl_event_parent(tr, uid), "    runtime  ");
			if (l >= 0)
				show_line(f, tr, (uint64_t)l, "    launcher ");
		}
	} else {
		ng = tl_event_gpu_events(tr, uid, &gpu);
		if (ng > 0) {
			fmt_us(d, sizeof(d), busy_us(tr, gpu, (size_t)ng));
			fprintf(f, "  GPU events below it: %lld, busy %s\n", (long long)ng, d);
			for (i = 0; i < (size_t)ng && i < 40; i++)
				show_line(f, tr, gpu[ng - 1 - (int64_t)i], "    ");
			if (ng > 40)
				fprintf(f, "    ... %lld more\n", (long long)ng - 40);
		}
		free(gpu);
	}
	fwd = tl_event_fwd(tr, uid);
	if (fwd >= 0)
		show_line(f, tr, (uint64_t)fwd, "  forward op: ");
	nb = tl_event_bwd(tr, uid, bwd, TL_ARRAY_N(bwd));
	for (i = 0; i < nb && i < TL_ARRAY_N(bwd); i++)
		show_line(f, tr, bwd[i], "  backward:   ");
}

struct show_args {
	struct common_opts co;
	bool py;
};

static const struct opt show_opts[] = {
	OPT_INCLUDE(opts_nav_json, offsetof(struct show_args, co)),
	OPT_BOOL(0, "python", struct show_args, py, "build the call tree with python_function events"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(show, show_opts, "show one event: args, call stack, children, GPU events",
	"usage: tlreplay show [-i TRACE] [-j] [-o FILE] [--python] UID...\n"
	"\n"
	"Show an event: its fields and args, the call stack above it, its children, the GPU\n"
	"events below it (or, for a GPU event, the runtime call and op that launched it), and\n"
	"its forward/backward partner.\n"
	"\n");
/* clang-format on */

static int cmd_show(int argc, char **argv)
{
	struct show_args x = { 0 };
	struct common_opts *co = &x.co;
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	int rc = 1, a;

	if (!opts_parse(&show_cmd, argc, argv, &x, &rc))
		return rc;
	if (cli_check_format("show", co) || cli_no_sep("show", co))
		return 1;
	if (optind >= argc)
		return cli_error("show: which event? usage: tlreplay show [-i TRACE] UID...");
	if (nav_load(co, x.py, &tr, &o))
		goto out;
	for (a = optind; a < argc; a++) {
		uint64_t uid;

		if (!nav_parse_uid("show", argv[a], tr, &uid)) {
			out_close(&o, true);
			goto out;
		}
		if (co->json)
			show_json(o.f, tr, uid);
		else {
			if (a > optind)
				fputc('\n', o.f);
			show_human(o.f, tr, uid);
		}
	}
	rc = out_close(&o, false);
out:
	tl_trace_close(tr);
	return rc;
}


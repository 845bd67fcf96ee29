/* SPDX-License-Identifier: MIT */
/* tlreplay seqs: the most frequent kernel sequences, fusion candidates
 * (tl_kernel_ngrams(), tl_op_kernel_patterns(), include/tlreplay/kernel_seq.h). */
#include <stdlib.h>
#include <string.h>

#include <tlreplay/kernel_seq.h>

#include "builtin.h"

#define NOT_SET (~0ULL)

struct seqs_args {
	struct common_opts co;
	unsigned long long len, min_len, max_len, top;
	bool raw;
	const char *device;
	const char *op;
};

static const struct opt seqs_opts[] = {
	OPT_INCLUDE(opts_analysis, offsetof(struct seqs_args, co)),
	OPT_U64('L', "length", "L", struct seqs_args, len, "sequences of L kernels (default 2)"),
	OPT_U64(0, "min-length", "A", struct seqs_args, min_len, "sequences of A to B kernels (with --max-length)"),
	OPT_U64(0, "max-length", "B", struct seqs_args, max_len, "the longest sequences counted"),
	OPT_U64('n', "limit", "N", struct seqs_args, top, "the N most frequent (default 20; 0 = all)"),
	/* -n is --limit in every command; --top stays for older command lines */
	{ .kind = OPT_KIND_U64,
	  .long_name = "top",
	  .argh = "N",
	  .flags = OPT_HIDDEN,
	  .off = OPT_FIELD(struct seqs_args, top, unsigned long long) },
	OPT_BOOL(0, "raw-names", struct seqs_args, raw, "kernel names as written (default: HTA's shortened names)"),
	OPT_STRING(0, "gpu-pid", "PID", struct seqs_args, device,
		   "only the kernels of the GPU whose pid is PID (as printed)"),
	/* --device names a backend elsewhere; here it was the GPU pid: kept */
	{ .kind = OPT_KIND_STRING,
	  .long_name = "device",
	  .argh = "PID",
	  .flags = OPT_HIDDEN,
	  .off = OPT_FIELD(struct seqs_args, device, const char *) },
	OPT_STRING(0, "op", "NAME", struct seqs_args, op,
		   "HTA's frequent CUDA kernel sequences of the ops whose name\n"
		   "contains NAME (min length: --min-length, default 3)"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(seqs, seqs_opts, "most frequent kernel sequences (fusion candidates), or HTA's of one op",
	"usage: tlreplay seqs [-i TRACE] [-x SEP | -j] [-o FILE] [--length L | --min-length A\n"
	"                     --max-length B] [--top N] [--raw-names] [--gpu-pid PID]\n"
	"       tlreplay seqs [-i TRACE] [-x SEP | -j] [-o FILE] --op NAME [--min-length A] [--top N]\n"
	"\n"
	"Every run of L consecutive kernels on one GPU stream, counted by the names of its\n"
	"kernels (overlapping runs all count): count, the kernels' total and mean duration per\n"
	"occurrence, the idle time between them, the share of all kernel time. With --op:\n"
	"HTA's frequent CUDA kernel sequences, each shallowest op whose name contains NAME and\n"
	"that launches at least A GPU events makes the pattern \"op|event|event...\" (its GPU\n"
	"events by start time): count, GPU and CPU time, share of the patterns' GPU time.\n"
	"docs/analyses.md, \"Kernel sequences\", has the details.\n"
	"\n");
/* clang-format on */

static void print_ngrams(struct out_fmt *o, const struct tl_ngram_table *t)
{
	size_t i;
	unsigned q;

	if (!o->sep && !o->json)
		fprintf(o->f, "%8s %12s %10s %10s %6s %3s  %s\n", "count", "total us", "mean us",
			"idle us", "%", "len", "sequence");
	else if (o->sep)
		fprintf(o->f, "count%slength%stotal_us%smean_us%sidle_us%spercent%sfirst_uid%ssequence\n",
			o->sep, o->sep, o->sep, o->sep, o->sep, o->sep, o->sep);
	for (i = 0; i < t->n; i++) {
		const struct tl_ngram_row *r = &t->v[i];
		char c[32], u[32];

		snprintf(c, sizeof(c), "%llu", (unsigned long long)r->count);
		snprintf(u, sizeof(u), "%llu", (unsigned long long)r->first_uid);
		if (o->json) {
			fprintf(o->f, "{\"count\":%s,\"length\":%u,\"total_us\":", c, r->len);
			out_num(o, r->total_us, false);
			fputs(",\"mean_us\":", o->f);
			out_num(o, r->mean_us, false);
			fputs(",\"idle_us\":", o->f);
			out_num(o, r->idle_us, false);
			fputs(",\"percent\":", o->f);
			out_num(o, r->pct, false);
			fprintf(o->f, ",\"first_uid\":%s,\"sequence\":[", u);
			for (q = 0; q < r->len; q++) {
				if (q)
					fputc(',', o->f);
				json_str(o->f, r->names[q]);
			}
			fputs("]}\n", o->f);
		} else if (o->sep) {
			char l[16];
			size_t n = 0, k;
			char *s;

			for (q = 0; q < r->len; q++)
				n += strlen(r->names[q]) + 3;
			s = malloc(n + 1);
			if (!s)
				continue;
			for (q = 0, k = 0; q < r->len; q++)
				k += (size_t)sprintf(s + k, "%s%s", q ? " | " : "", r->names[q]);
			snprintf(l, sizeof(l), "%u", r->len);
			out_field(o, c, false);
			out_field(o, l, false);
			out_num(o, r->total_us, false);
			out_num(o, r->mean_us, false);
			out_num(o, r->idle_us, false);
			out_num(o, r->pct, false);
			out_field(o, u, false);
			out_field(o, s, true);
			free(s);
		} else {
			fprintf(o->f, "%8s %12.3f %10.3f %10.3f %6.2f %3u ", c, r->total_us, r->mean_us,
				r->idle_us, r->pct, r->len);
			for (q = 0; q < r->len; q++)
				fprintf(o->f, "%s%.60s", q ? " | " : " ", r->names[q]);
			fputc('\n', o->f);
		}
	}
	if (!o->sep && !o->json)
		fprintf(o->f, "%zu of %zu distinct sequences; %llu kernels, %.3f us\n", t->n, t->nseqs,
			(unsigned long long)t->nkernels, t->kernel_us);
}

static void print_patterns(struct out_fmt *o, const struct tl_op_pattern_table *t)
{
	size_t i;

	if (!o->sep && !o->json)
		fprintf(o->f, "%8s %14s %14s %6s  %s\n", "count", "GPU us", "CPU us", "%", "pattern");
	else if (o->sep)
		fprintf(o->f, "count%sgpu_us%scpu_us%spercent%spattern\n", o->sep, o->sep, o->sep, o->sep);
	for (i = 0; i < t->n; i++) {
		const struct tl_op_pattern_row *r = &t->v[i];
		char c[32];

		snprintf(c, sizeof(c), "%llu", (unsigned long long)r->count);
		if (o->json) {
			fprintf(o->f, "{\"count\":%s,\"gpu_us\":", c);
			out_num(o, r->gpu_us, false);
			fputs(",\"cpu_us\":", o->f);
			out_num(o, r->cpu_us, false);
			fputs(",\"percent\":", o->f);
			out_num(o, r->pct, false);
			fputs(",\"pattern\":", o->f);
			json_str(o->f, r->pattern);
			fputs("}\n", o->f);
		} else if (o->sep) {
			out_field(o, c, false);
			out_num(o, r->gpu_us, false);
			out_num(o, r->cpu_us, false);
			out_num(o, r->pct, false);
			out_field(o, r->pattern, true);
		} else {
			fprintf(o->f, "%8s %14.3f %14.3f %6.2f  %.200s\n", c, r->gpu_us, r->cpu_us, r->pct,
				r->pattern);
		}
	}
	if (!o->sep && !o->json)
		fprintf(o->f, "%zu of %zu patterns; %llu ops\n", t->n, t->npatterns,
			(unsigned long long)t->nroots);
}

static int cmd_seqs(int argc, char **argv)
{
	struct seqs_args a = { .top = 20, .len = NOT_SET, .min_len = NOT_SET, .max_len = NOT_SET };
	struct tl_ngram_opts no = { .sz = sizeof(no) };
	struct tl_op_pattern_opts po = { .sz = sizeof(po) };
	struct tl_ngram_table *nt = NULL;
	struct tl_op_pattern_table *pt = NULL;
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	int rc = 1, err;

	if (!opts_parse(&seqs_cmd, argc, argv, &a, &rc))
		goto out;
	if (cli_no_args("seqs", argc, argv) || cli_check_format("seqs", &a.co))
		goto out;
	/* NOT_SET: an option not given, so that 0 is an error, not the default */
	if (a.len != NOT_SET && (a.min_len != NOT_SET || a.max_len != NOT_SET)) {
		rc = cli_error("seqs: --length and --min-length/--max-length do not go together");
		goto out;
	}
	if (a.op && (a.len != NOT_SET || a.max_len != NOT_SET || a.device || a.raw)) {
		rc = cli_error("seqs: --op takes only --min-length and --top");
		goto out;
	}
	if (a.op && !*a.op) {
		rc = cli_error("seqs: bad --op '' (part of an op name, e.g. aten::linear)");
		goto out;
	}
	if (a.device && !*a.device) {
		rc = cli_error("seqs: bad --device '' (a device, as `tlreplay breakdown --per-device` names it)");
		goto out;
	}
	if (a.min_len == NOT_SET)
		a.min_len = a.len != NOT_SET ? a.len : a.op ? 3 : 2;
	if (a.max_len == NOT_SET)
		a.max_len = a.len != NOT_SET ? a.len : a.min_len;
	if (!a.min_len || a.max_len < a.min_len || a.max_len > 1024) {
		rc = cli_error("seqs: bad lengths %llu..%llu (1 <= --min-length <= --max-length <= 1024)",
			       a.min_len, a.max_len);
		goto out;
	}
	if (cli_open_trace(&a.co, &tr))
		goto out;
	if (a.op) {
		po.op = a.op;
		po.min_len = (unsigned)a.min_len;
		po.top = a.top;
		err = tl_op_kernel_patterns(tr, &po, &pt);
	} else {
		no.min_len = (unsigned)a.min_len;
		no.max_len = (unsigned)a.max_len;
		no.top = a.top;
		no.raw_names = a.raw;
		no.device = a.device;
		err = tl_kernel_ngrams(tr, &no, &nt);
	}
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open_opts(&o, &a.co))
		goto out;
	if (pt)
		print_patterns(&o, pt);
	else
		print_ngrams(&o, nt);
	rc = out_close(&o, false);
out:
	tl_ngram_table_free(nt);
	tl_op_pattern_table_free(pt);
	tl_trace_close(tr);
	return rc;
}

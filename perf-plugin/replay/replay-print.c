/* SPDX-License-Identifier: MIT */
/* How uid and replay print a replay's result (replay-print.h). */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/replay-print.h"


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

void print_args(FILE *f, const cJSON *entry)
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

double result_num(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

const char *result_str(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(x) ? x->valuestring : NULL;
}

/* The result of one replay, human-readable. */
void print_result(FILE *f, const struct replay_opts *ro, const cJSON *entry,
			 const cJSON *reply, const struct tl_worker *w, bool show_device)
{
	const char *st = reply_status(reply), *verdict;
	const cJSON *h = tl_worker_hello(w);
	struct tl_stats s;
	char b[32];

	if (show_device)
		fprintf(f, "  device %s (torch %s, %s)\n", ro->device,
			result_str(h, "torch") ? result_str(h, "torch") : "?", tl_worker_python(w));
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
	{
		/* what the worker says it did otherwise than asked (an alias, a portable stand-in for
		 * an op of another backend, a fitted schema): shown, not only kept in -j */
		const cJSON *wv = cJSON_GetObjectItemCaseSensitive(reply, "warnings"), *x;
		int k = 0;

		cJSON_ArrayForEach(x, wv)
			if (cJSON_IsString(x) && k++ < 5)
				fprintf(f, "  note   %s\n", x->valuestring);
	}
	if (strcmp(st, "ok")) {
		fprintf(f, "  %s: %s\n", st, result_str(reply, "error") ? result_str(reply, "error") : "(no reason given)");
		return;
	}
	reply_stats(reply, &s);
	{
		/* one unit for all five, the one that suits the median */
		double k = s.median >= 1e6 ? 1e-6 : s.median >= 1e3 ? 1e-3 : 1;
		const char *u = k == 1 ? "us" : k == 1e-3 ? "ms" : "s";

		/* the warm-up the worker made: fewer than asked when cut to the budget */
		const cJSON *plan = cJSON_GetObjectItemCaseSensitive(reply, "plan");
		long warm = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(plan, "warmup"))
				    ? (long)result_num(plan, "warmup")
				    : ro->warmup;

		fprintf(f,
			"  time   median %.3f %s  mean %.3f  std %.3f  min %.3f  max %.3f %s"
			"  (%zu timed calls after %ld warm-up%s)\n",
			s.median * k, u, s.mean * k, s.n > 1 ? s.std * k : 0.0, s.min * k, s.max * k, u, s.n, warm,
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(plan, "cut")) ? ", fitted to the --budget" : "");
	}
	if (result_str(reply, "result"))
		fprintf(f, "  result %s\n", result_str(reply, "result"));
	{
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(reply, "init"), *x;

		cJSON_ArrayForEach(x, in)
			if (cJSON_IsString(x))
				fprintf(f, "  init   %s\n", x->valuestring);
	}
	if (!(result_num(entry, "gpu_time_us") > 0)) {
		/* an op that launched nothing on a GPU: nothing to compare with */
	} else if (!strncmp(ro->device, "cuda", 4)) {
		fmt_us(b, sizeof(b), result_num(entry, "gpu_time_us"));
		fprintf(f, "  trace  %s on the GPU: replay/trace = %.2f\n", b,
			s.median / result_num(entry, "gpu_time_us"));
		if (result_num(reply, "kernel_us") > 0) {
			/* the kernels alone, as the trace counts them: no launch gaps */
			fmt_us(b, sizeof(b), result_num(reply, "kernel_us"));
			fprintf(f, "  gpu    %s in the replay's kernels (one profiled call): replay/trace = %.2f\n",
				b, result_num(reply, "kernel_us") / result_num(entry, "gpu_time_us"));
		}
	} else {
		fmt_us(b, sizeof(b), result_num(entry, "gpu_time_us"));
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
			if (result_str(x, "name"))
				fprintf(f, "    trace:  %.120s\n", result_str(x, "name"));
	}
}

/* The result as one JSON object (entry summary + reply + stats). */
void print_result_json(FILE *f, const struct replay_opts *ro, const cJSON *entry,
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
	if (result_str(entry, "op_name"))
		cJSON_AddStringToObject(o, "op", result_str(entry, "op_name"));
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
		if (isfinite(result_num(entry, "gpu_time_us")))
			cJSON_AddNumberToObject(o, "trace_gpu_us", result_num(entry, "gpu_time_us"));
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


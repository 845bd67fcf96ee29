/* SPDX-License-Identifier: MIT */
/* tl_kernel_short_name(): HTA's shorten_name on the shapes of kernel names
 * the traces hold (templates, lambdas, "->" return types, memory kernels),
 * and tl_kernel_ngrams() on a run shorter than the length asked. */
#include <errno.h>
#include <string.h>

#include <tlreplay/kernel_seq.h>
#include <tlreplay/trace.h>

#include "tap.h"

static int short_is(const char *in, const char *want)
{
	char buf[256];

	tl_kernel_short_name(in, buf, sizeof(buf));
	return ok(!strcmp(buf, want), "short name of '%s' is '%s' (got '%s')", in, want, buf);
}

int main(void)
{
	static const char tr_json[] =
		"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,"
		"\"ts\":0,\"dur\":1,\"args\":{\"stream\":7}}]}";
	struct tl_ngram_opts o = { .sz = sizeof(o), .min_len = 2, .max_len = 2 };
	struct tl_ngram_table *t = NULL;
	struct tl_trace *tr = NULL;
	char small[4];

	short_is("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
		 "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
		 "at::native::vectorized_elementwise_kernel");
	short_is("ampere_sgemm_32x32_sliced1x4_tn", "ampere_sgemm_32x32_sliced1x4_tn");
	short_is("Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pageable -> Device)");
	short_is("hipMemsetAsync(x)", "hipMemsetAsync(x)");
	short_is("void kC<(anonymous namespace)::T>(int)", "kC");
	short_is("auto f()->int", "fint");
	short_is("f(a))b", "b");
	short_is("unbalanced)", "unbalanced)");
	tl_kernel_short_name("abcdef", small, sizeof(small));
	ok(!strcmp(small, "abc"), "a short buffer truncates");

	ok(tl_trace_open_mem(tr_json, sizeof(tr_json) - 1, "mem", NULL, &tr) == 0, "one-kernel trace loads");
	ok(tl_kernel_ngrams(tr, &o, &t) == 0 && t->n == 0 && t->nkernels == 1,
	   "a stream shorter than the length gives no sequence, no error");
	tl_ngram_table_free(t);
	o.min_len = 3;
	ok(tl_kernel_ngrams(tr, &o, &t) == -EINVAL && !t, "min > max is -EINVAL");
	tl_trace_close(tr);
	return done_testing();
}

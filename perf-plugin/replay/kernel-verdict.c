/* SPDX-License-Identifier: MIT */
/* How the kernels a replay ran compare with the trace's (replay-common.h):
 * MATCH, the same names; FAMILY, the same kernels once what varies across
 * GPUs and library versions is normalised (vector widths and tile sizes,
 * anonymous namespaces, the elementwise loop chosen); LIBRARY, the same
 * library's kind of kernel (a cuBLAS GEMM and an nvjet one, two cuDNN
 * convolutions); SUBSET, only kernels the trace has; else MISMATCH. */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay-common.h"

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Append @s[0, n) to @out (room @cap, used @len), dropping what does not fit. */
static void put(char *out, size_t cap, size_t *len, const char *s, size_t n)
{
	if (*len + 1 >= cap)
		return;
	if (n > cap - 1 - *len)
		n = cap - 1 - *len;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = 0;
}

/* The identifier that ends at @e (exclusive) in @s: its start. */
static const char *ident_start(const char *s, const char *e)
{
	while (e > s && ident_char(e[-1]))
		e--;
	return e;
}

/* Words of a template's arguments that say what the kernel computes: functor
 * names (MulFunctor, BUnaryFunctor, CUDAFunctor_add), functions whose lambdas it runs
 * (batch_norm_calc_invstd, direct_copy_kernel_cuda) and element types. */
static bool telling(const char *w, size_t n, char next)
{
	static const char *const types[] = { "float", "double",	       "BFloat16",    "Half",
					     "bool",  "Float8_e4m3fn", "Float8_e5m2", "complex" };
	size_t i;

	if (memmem(w, n, "Functor", 7))
		return true;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (n == strlen(types[i]) && !strncmp(w, types[i], n))
			return true;
	if (next == '(')
		return !(n == 8 && !strncmp(w, "operator", 8)) && !(n == 6 && !strncmp(w, "lambda", 6)) &&
		       strncmp(w, "gpu_kernel_impl", 15) != 0;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* @name without its "(anonymous namespace)::" qualifiers, malloc'ed (NULL:
 * out of memory). */
static char *drop_anonymous(const char *name)
{
	static const char anon[] = "(anonymous namespace)::";
	char *s = strdup(name), *w, *r;

	if (!s)
		return NULL;
	for (w = r = s; *r;) {
		if (!strncmp(r, anon, sizeof(anon) - 1)) {
			r += sizeof(anon) - 1;
			continue;
		}
		*w++ = *r++;
	}
	*w = 0;
	return s;
}

void kernel_family(const char *name, char *out, size_t cap)
{
	char *words[64], *plain = NULL;
	const char *p, *base, *end;
	size_t nw = 0, len = 0, i;
	int depth;

	if (!cap)
		return;
	out[0] = 0;
	p = plain = drop_anonymous(name);
	if (!p)
		return;
	if (!strncmp(p, "void ", 5))
		p += 5;
	end = p + strcspn(p, "<(");
	/* the function's own name, its namespaces dropped */
	base = ident_start(p, end);
	if (*end != '<') {
		/* no template (cuBLAS's, cuDNN's, nvjet's own names): digits
		 * stand for tile sizes and architectures */
		for (; *p && *p != '(' && len + 2 < cap; p++) {
			if (isdigit((unsigned char)*p)) {
				while (isdigit((unsigned char)p[1]))
					p++;
				put(out, cap, &len, "#", 1);
			} else {
				put(out, cap, &len, p, 1);
			}
		}
		free(plain);
		return;
	}
	/* the elementwise loops are one kernel: which one runs is the data's
	 * alignment and the GPU's, not the op */
	if ((size_t)(end - base) >= 18 && !strncmp(end - 18, "elementwise_kernel", 18))
		put(out, cap, &len, "elementwise_kernel", 18);
	else
		put(out, cap, &len, base, (size_t)(end - base));
	/* the words of its template's arguments, up to the matching '>' */
	for (p = end + 1, depth = 1; *p && depth > 0; p++) {
		const char *w;

		if (*p == '<')
			depth++;
		else if (*p == '>')
			depth--;
		if (!ident_char(*p) || ident_char(p[1]))
			continue;
		w = ident_start(end, p + 1);
		if (isdigit((unsigned char)*w) || !telling(w, (size_t)(p + 1 - w), p[1]))
			continue;
		for (i = 0; i < nw && (strlen(words[i]) != (size_t)(p + 1 - w) || strncmp(words[i], w, p + 1 - w)); i++)
			;
		if (i == nw && nw < sizeof(words) / sizeof(words[0]) && (words[nw] = strndup(w, p + 1 - w)))
			nw++;
	}
	qsort(words, nw, sizeof(*words), cmp_str);
	put(out, cap, &len, "<", 1);
	for (i = 0; i < nw; i++) {
		if (i)
			put(out, cap, &len, ",", 1);
		put(out, cap, &len, words[i], strlen(words[i]));
		free(words[i]);
	}
	put(out, cap, &len, ">", 1);
	free(plain);
}

/* Whether @hay holds @needle, ignoring case. */
static bool has(const char *hay, const char *needle)
{
	return strcasestr(hay, needle) != NULL;
}

const char *kernel_library(const char *name)
{
	if (has(name, "nccl") || has(name, "rccl"))
		return "collective";
	if (has(name, "flash") || has(name, "fmha") || has(name, "sdpa") || has(name, "attention") ||
	    has(name, "_attn"))
		return "attention";
	if (has(name, "conv") || has(name, "fprop") || has(name, "dgrad") || has(name, "wgrad") || has(name, "cudnn"))
		return "convolution";
	if (has(name, "gemm") || has(name, "nvjet") || has(name, "cutlass") || has(name, "cublas") ||
	    has(name, "xmma") || has(name, "Cijk_"))
		return "gemm";
	return NULL;
}

/* Every key of @a's kernels (by @key) is one of @b's. */
static bool keys_in(const cJSON *a, const cJSON *b, int key)
{
	const cJSON *x, *y;
	char ka[1024], kb[1024];

	cJSON_ArrayForEach(x, a) {
		bool found = false;

		if (!cJSON_IsString(x))
			return false;
		if (key == 1)
			kernel_family(x->valuestring, ka, sizeof(ka));
		cJSON_ArrayForEach(y, b) {
			const char *la, *lb;

			if (!cJSON_IsString(y))
				continue;
			if (key == 0) {
				found = !strcmp(x->valuestring, y->valuestring);
			} else if (key == 1) {
				kernel_family(y->valuestring, kb, sizeof(kb));
				found = !strcmp(ka, kb);
			} else {
				la = kernel_library(x->valuestring);
				lb = kernel_library(y->valuestring);
				if (la || lb) {
					found = la && lb && !strcmp(la, lb);
				} else {
					kernel_family(x->valuestring, ka, sizeof(ka));
					kernel_family(y->valuestring, kb, sizeof(kb));
					found = !strcmp(ka, kb);
				}
			}
			if (found)
				break;
		}
		if (!found)
			return false;
	}
	return true;
}

const char *kernel_verdict(const cJSON *entry, const cJSON *reply)
{
	const cJSON *tk = cJSON_GetObjectItemCaseSensitive(entry, "kernels");
	const cJSON *rk = cJSON_GetObjectItemCaseSensitive(reply, "kernels"), *k;
	cJSON *names;
	const char *v;
	int key;

	if (!cJSON_IsArray(rk) || !cJSON_GetArraySize(rk) || !cJSON_IsArray(tk) || !cJSON_GetArraySize(tk))
		return NULL;
	/* the trace's kernel names, as the replay's are: a list of strings */
	names = cJSON_CreateArray();
	if (!names)
		return NULL;
	cJSON_ArrayForEach(k, tk) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(k, "name");

		cJSON_AddItemToArray(names,
				     cJSON_IsString(n) ? cJSON_CreateString(n->valuestring) : cJSON_CreateNull());
	}
	v = "MISMATCH";
	for (key = 0; key < 3; key++)
		if (keys_in(rk, names, key) && keys_in(names, rk, key)) {
			v = key == 0 ? "MATCH" : key == 1 ? "FAMILY" : "LIBRARY";
			break;
		}
	if (key == 3 && keys_in(rk, names, 0))
		v = "SUBSET";
	cJSON_Delete(names);
	return v;
}

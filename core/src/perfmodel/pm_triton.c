/* SPDX-License-Identifier: MIT */
/* torch.compile's fused Triton kernels (triton_poi_*, triton_red_*,
 * triton_per_*), modelled as TraceLens's TritonCompiledPerfModel does from
 * what the trace records of the kernel's call (PyTorch 2.4+):
 *
 *   - the element counts are the last integer Concrete Inputs: xnumel, and
 *     for a reduction (red_, per_) xnumel then rnumel;
 *   - the fused ATen ops are read off the name ("fused_add_addmm_silu_3":
 *     add, addmm, silu), splitting it at the underscores into ATen op names
 *     (some hold underscores: _unsafe_view, native_layer_norm), the longest
 *     name first; FLOPs = the ops' FLOPs per element x xnumel x rnumel;
 *   - bytes = every tensor argument's elements x its dtype's size, plus one
 *     write of xnumel elements of the first for a pointwise kernel.
 *
 * A call whose args give no element count has no model (TraceLens's
 * can_model): its row is the plain launcher's. TraceLens falls back to
 * Inductor's cache files for traces without these args; that is not done
 * here (the cache is on the machine that compiled, not beside the trace).
 * The kernels are in no perf sheet: their class is matched by name prefix,
 * not listed in a family table, and TraceLens writes them to
 * unified_perf_summary only. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perfmodel/perfmodel_internal.h"


static const struct {
	const char *op;
	int flops;
} flops_per_elem[] = {
	{ "add", 1 }, { "sub", 1 }, { "mul", 1 }, { "div", 1 }, { "pow", 2 }, { "sqrt", 2 },
	{ "rsqrt", 2 }, { "exp", 4 }, { "log", 4 }, { "sigmoid", 4 }, { "tanh", 4 }, { "relu", 1 },
	{ "silu", 4 }, { "gelu", 8 }, { "mean", 1 }, { "sum", 1 }, { "var", 2 }, { "abs", 1 },
	{ "neg", 1 }, { "reciprocal", 2 }, { "ne", 1 }, { "eq", 1 }, { "lt", 1 }, { "gt", 1 },
	/* memory only: _to_copy, copy_, clone, embedding and the rest */
};

static const struct {
	const char *dtype;
	int bytes;
} c10_bytes[] = {
	{ "c10::BFloat16", 2 }, { "c10::Half", 2 }, { "c10::Float", 4 }, { "c10::Double", 8 },
	{ "c10::Byte", 1 },	{ "c10::Char", 1 }, { "c10::Int", 4 },	 { "c10::Long", 8 },
};

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

static bool is_aten_op(const char *s, size_t n)
{
	char buf[128];

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	return bsearch(buf, pm_aten_ops, pm_aten_nops, sizeof(pm_aten_ops[0]), cmp_name) != NULL;
}

/* The fused ops of kernel @name, as "aten.a, aten.b" into @out (""
 * when the name does not split into ATen ops); 0 or -ENOSPC. Tokens are
 * the name's "_"-separated words between "fused_" and the "_<index>" at its
 * end; best[i] is the start of the longest op ending at token i on some
 * split of tokens 0..i (-1: none). */
static int fused_ops(const char *name, char *out, size_t cap)
{
	const char *p, *end = name + strlen(name), *q;
	const char *tok[128];
	size_t ntok = 0, len[128], i, j, o = 0;
	int best[129], stack[128], ns = 0;

	out[0] = 0;
	if (strncmp(name, "triton_", 7) || (strncmp(name + 7, "poi_fused_", 10) &&
					     strncmp(name + 7, "red_fused_", 10) && strncmp(name + 7, "per_fused_", 10)))
		return 0;
	p = name + 17;
	/* the trailing _<digits>, with something before it */
	for (q = end; q > p && q[-1] >= '0' && q[-1] <= '9'; q--)
		;
	if (q == end || q - 1 <= p || q[-1] != '_')
		return 0;
	end = q - 1;
	for (q = p;; q++) {
		if (q == end || *q == '_') {
			if (ntok == TL_ARRAY_SIZE(tok))
				return 0;
			tok[ntok] = p;
			len[ntok++] = (size_t)(q - p);
			p = q + 1;
			if (q == end)
				break;
		}
	}
	/* best[i]: over tokens [0, i), the start j of the longest op ending
	 * at i with a split of [0, j) (-1 when none) */
	best[0] = 0;
	for (i = 1; i <= ntok; i++) {
		best[i] = -1;
		for (j = 0; j < i; j++) {
			size_t n = (size_t)(tok[i - 1] + len[i - 1] - tok[j]);

			if (best[j] < 0 && j)
				continue;
			if (!is_aten_op(tok[j], n))
				continue;
			/* the longest, i.e. the earliest start */
			if (best[i] < 0 || (int)j < best[i])
				best[i] = (int)j;
		}
	}
	if (best[ntok] < 0)
		return 0;
	for (i = ntok; i > 0; i = (size_t)best[i])
		stack[ns++] = (int)i;
	while (ns--) {
		size_t e = (size_t)stack[ns], s = (size_t)best[e], n = (size_t)(tok[e - 1] + len[e - 1] - tok[s]);
		size_t need = (o ? 2 : 0) + 5 + n;

		if (o + need + 1 > cap)
			return -ENOSPC;
		if (o)
			o += (size_t)snprintf(out + o, cap - o, ", ");
		o += (size_t)snprintf(out + o, cap - o, "aten.%.*s", (int)n, tok[s]);
	}
	return 0;
}

/* What the call's args say: element counts, bytes and dtype. false when
 * they give no element count (TraceLens's can_model). */
struct tmeta {
	double xnumel, rnumel, bytes;
	char dtype[32];
};

static bool meta_of(const struct pm_call *c, struct tmeta *m)
{
	const cJSON *ci = pm_arg(c, "Concrete Inputs"), *dims = pm_arg(c, "Input Dims");
	const cJSON *types = pm_arg(c, "Input type"), *v;
	bool red = !strncmp(c->name, "triton_red_", 11) || !strncmp(c->name, "triton_per_", 11);
	bool poi = !strncmp(c->name, "triton_poi_", 11);
	double sc[2] = { 0, 0 }, first_bpe = -1;
	size_t nsc = 0, n, i, k;

	memset(m, 0, sizeof(*m));
	if (!cJSON_GetArraySize(ci) || !cJSON_GetArraySize(dims) || !cJSON_GetArraySize(types))
		return false;
	/* the integers among the Concrete Inputs: the last two are kept */
	cJSON_ArrayForEach(v, ci) {
		double x;
		char *end;

		if (cJSON_IsString(v)) {
			if (!v->valuestring[0])
				continue;
			x = (double)strtoll(v->valuestring, &end, 10);
			while (*end == ' ' || *end == '\t' || *end == '\n')
				end++;
			if (*end || end == v->valuestring)
				continue;
		} else if (cJSON_IsNumber(v)) {
			x = trunc(v->valuedouble);
		} else {
			continue;
		}
		/* the last two: sc[0] before sc[1] */
		sc[0] = sc[1];
		sc[1] = x;
		nsc++;
	}
	if (red && nsc >= 2) {
		m->xnumel = sc[0];
		m->rnumel = sc[1];
	} else if (nsc) {
		m->xnumel = sc[1];
		m->rnumel = 1;
	} else {
		return false;
	}
	n = (size_t)cJSON_GetArraySize(dims);
	if ((size_t)cJSON_GetArraySize(types) < n)
		n = (size_t)cJSON_GetArraySize(types);
	for (i = 0; i < n; i++) {
		const cJSON *d = cJSON_GetArrayItem(dims, (int)i), *t = cJSON_GetArrayItem(types, (int)i), *x;
		const char *dt = cJSON_IsString(t) ? t->valuestring : "";
		double elems = 1;
		int bpe = 0;

		if (!strcmp(dt, "Scalar") || !cJSON_GetArraySize(d))
			continue;
		for (k = 0; k < TL_ARRAY_SIZE(c10_bytes); k++)
			if (!strcmp(dt, c10_bytes[k].dtype))
				bpe = c10_bytes[k].bytes;
		cJSON_ArrayForEach(x, d) {
			if (!cJSON_IsNumber(x))
				return false;
			elems *= x->valuedouble;
		}
		m->bytes += elems * bpe;
		if (first_bpe < 0)
			first_bpe = bpe;
		if (!m->dtype[0] && bpe > 0) {
			const char *s = strrchr(dt, ':');

			snprintf(m->dtype, sizeof(m->dtype), "%s", s ? s + 1 : dt);
			for (k = 0; m->dtype[k]; k++)
				if (m->dtype[k] >= 'A' && m->dtype[k] <= 'Z')
					m->dtype[k] = (char)(m->dtype[k] - 'A' + 'a');
		}
	}
	if (poi && first_bpe >= 0)
		m->bytes += first_bpe * m->xnumel;
	return true;
}

static bool can_model_triton(const struct pm_call *c)
{
	struct tmeta m;

	return meta_of(c, &m);
}

static int model_triton(const struct pm_call *c, struct pm_out *o)
{
	struct tmeta m;
	char ops[1024];
	const char *p;
	double fpe = 0;
	size_t k;

	if (!meta_of(c, &m))
		return pm_fail(o, "no element count in the Concrete Inputs");
	if (fused_ops(c->name, ops, sizeof(ops)))
		return pm_fail(o, "too many fused ops in the name");
	for (p = ops; *p; p = strchr(p, ',') ? strchr(p, ',') + 2 : p + strlen(p)) {
		size_t n = strcspn(p + 5, ",");

		for (k = 0; k < TL_ARRAY_SIZE(flops_per_elem); k++)
			if (strlen(flops_per_elem[k].op) == n && !strncmp(p + 5, flops_per_elem[k].op, n))
				fpe += flops_per_elem[k].flops;
	}
	if (pm_param_str(o, "fused_ops", ops) || pm_param_int(o, "xnumel", (long long)m.xnumel) ||
	    pm_param_int(o, "rnumel", (long long)m.rnumel))
		return pm_fail(o, "parameters do not fit");
	o->gflops = fpe * m.xnumel * m.rnumel / 1e9;
	o->bytes = m.bytes;
	if (m.dtype[0])
		snprintf(o->compute_spec, sizeof(o->compute_spec), "vector_%s", m.dtype);
	return 0;
}

static const char *const no_ops[] = { NULL };

const struct pm_class pm_triton_compiled_class = {
	"TritonCompiledPerfModel", NULL, "triton", no_ops, model_triton,
};

bool pm_can_model(const struct pm_class *cls, const struct pm_call *c)
{
	return cls != &pm_triton_compiled_class || can_model_triton(c);
}

bool pm_is_triton_compiled(const char *name)
{
	return !strncmp(name, "triton_poi_", 11) || !strncmp(name, "triton_red_", 11) ||
	       !strncmp(name, "triton_per_", 11);
}

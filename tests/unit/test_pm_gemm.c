/* SPDX-License-Identifier: MIT */
/* The GEMM perf models on hand-made calls: params, GFLOPs and bytes of small
 * shapes worked out by hand, and a one-line note with -EINVAL for args the
 * models cannot read. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "perf/perf_internal.h"
#include "tap.h"

/* Run op @name's model on args @json (with @kernel as its one kernel, or none). */
static int run(const char *name, const char *json, const char *kernel, struct pm_out *out)
{
	const char *ks[1] = { kernel };
	struct pm_call c = { .name = name, .kernels = ks, .nkernels = kernel ? 1 : 0 };
	const struct pm_class *cl = pm_class_of(name);
	cJSON *a = cJSON_Parse(json);
	int rc = -ENOENT;

	pm_out_init(out);
	c.args = a;
	if (cl)
		rc = cl->model(&c, out);
	cJSON_Delete(a);
	return rc;
}

static const char *param(const struct pm_out *o, const char *name)
{
	static char buf[64];

	for (size_t i = 0; i < o->nparams; i++) {
		if (strcmp(o->param_names[i], name))
			continue;
		if (o->params[i].kind == TL_CELL_STR)
			return o->params[i].s;
		if (o->params[i].kind == TL_CELL_BOOL)
			return o->params[i].i ? "True" : "False";
		snprintf(buf, sizeof buf, "%lld", o->params[i].i);
		return buf;
	}
	return "";
}

int main(void)
{
	struct pm_out o;
	int rc;

	rc = run("aten::mm", "{\"Input Dims\":[[4,8],[8,16]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"],"
		 "\"Input Strides\":[[8,1],[1,8]]}", NULL, &o);
	ok(rc == 0 && fabs(o.gflops - 2.0 * 4 * 8 * 16 / 1e9) < 1e-15, "mm: 2MNK FLOPs");
	ok(o.bytes == 2.0 * (4 * 8 + 8 * 16 + 4 * 16), "mm: bf16 bytes of A, B and out");
	ok(!strcmp(param(&o, "stride_B"), "(1, 8)") && !strcmp(param(&o, "B"), "1") &&
	   !strcmp(param(&o, "dtype_A_B"), "('c10::BFloat16', 'c10::BFloat16')"), "mm: params as Python reprs");
	ok(!strcmp(o.compute_spec, "matrix_bf16"), "mm: Compute Spec %s", o.compute_spec);

	rc = run("aten::addmm", "{\"Input Dims\":[[16],[4,8],[8,16]],\"Input type\":[\"float\",\"float\",\"float\"]}",
		 "Cijk_Alik_Bljk_MT64x16x64", &o);
	ok(rc == 0 && o.gflops * 1e9 == 2.0 * 4 * 8 * 16 + 4 * 16, "addmm: bias adds MN FLOPs");
	ok(o.bytes == 4.0 * (4 * 8 + 8 * 16 + 4 * 16 + 16), "addmm: bias adds N elements");
	ok(!strcmp(param(&o, "stride_A"), "None") && !strcmp(param(&o, "transpose"), "(True, False)"),
	   "addmm: no strides -> None; Tensile transpose");

	rc = run("aten::bmm", "{\"Input Dims\":[[3,4,8],[3,8,16]],\"Input type\":[\"c10::Half\",\"c10::Half\"]}",
		 "nvjet_tst_64x8_64x16_4x1_v_bz_TNN", &o);
	ok(rc == 0 && o.gflops * 1e9 == 3 * 2.0 * 4 * 8 * 16 && !strcmp(param(&o, "B"), "3"), "bmm: scaled by B");
	ok(!strcmp(param(&o, "transpose"), "(True, False)"), "bmm: nvjet transpose %s", param(&o, "transpose"));

	rc = run("aten::mm", "{\"Input type\":[\"float\",\"float\"]}", NULL, &o);
	ok(rc == -EINVAL && o.note[0] && !strchr(o.note, '\n'), "no Input Dims: -EINVAL, %s", o.note);
	rc = run("aten::mm", "{\"Input Dims\":[[4,8,2],[8,16]],\"Input type\":[\"float\",\"float\"]}", NULL, &o);
	ok(rc == -EINVAL && o.note[0], "wrong arity: -EINVAL, %s", o.note);
	rc = run("aten::mm", "{\"Input Dims\":[[4,\"x\"],[8,16]],\"Input type\":[\"float\",\"float\"]}", NULL, &o);
	ok(rc == -EINVAL && o.note[0], "non-numeric dim: -EINVAL, %s", o.note);
	rc = run("aten::addmm", "{\"Input Dims\":[[16],[4,8]],\"Input type\":[\"float\",\"float\"]}", NULL, &o);
	ok(rc == -EINVAL && o.note[0], "addmm with two inputs: -EINVAL, %s", o.note);
	rc = run("aten::mm", "{\"Input Dims\":[[4,8],[8,16]],\"Input type\":[\"weird\",\"weird\"]}", NULL, &o);
	ok(rc == 0 && isnan(o.bytes) && !o.compute_spec[0], "unknown dtype: no bytes, no Compute Spec");
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/* Helpers of the perf-model unit tests (test_pm_eltred.c, test_pm_gemm.c):
 * run a class's model on a hand-built call and read what it says. */
#ifndef TL_TEST_PM_H
#define TL_TEST_PM_H

#include <errno.h>
#include <math.h>
#include <string.h>

#include "tap.h"
#include "perfmodel/perfmodel_internal.h"

static struct pm_out res;

/* Run the model of op @name on args @json ("" for none) with kernel @kernel
 * (NULL for none); the result is in res. */
static inline int runk(const char *name, const char *json, const char *kernel)
{
	const struct pm_class *cls = pm_class_of(name);
	struct pm_call c = { 0 };
	int err;

	pm_out_init(&res);
	if (!cls)
		return -ENOENT;
	c.name = name;
	c.args = *json ? cJSON_Parse(json) : NULL;
	c.kernels = &kernel;
	c.nkernels = kernel != NULL;
	err = cls->model(&c, &res);
	cJSON_Delete((cJSON *)c.args);
	return err;
}

static inline int run(const char *name, const char *json)
{
	return runk(name, json, NULL);
}

static inline const char *param(const char *name)
{
	static char buf[64];
	size_t i;

	for (i = 0; i < res.nparams; i++)
		if (!strcmp(res.param_names[i], name))
			return tl_cell_text(&res.params[i], buf, sizeof(buf));
	return "<absent>";
}

static inline int names_are(const char *want)
{
	char got[512] = "";
	size_t i;

	for (i = 0; i < res.nparams; i++) {
		strcat(got, i ? "," : "");
		strcat(got, res.param_names[i]);
	}
	if (strcmp(got, want))
		diag("params %s, want %s", got, want);
	return !strcmp(got, want);
}

static inline int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) + 1e-15;
}

/* A refused call: -EINVAL, a note of one line, no numbers. */
static inline void refused(const char *name, const char *json, const char *what)
{
	int err = run(name, json);

	ok(err == -EINVAL && res.note[0] && !strchr(res.note, '\n'), "%s: %s -> -EINVAL (%s)", name, what,
	   res.note);
}

#endif

/* SPDX-License-Identifier: MIT */
/* A call as the perf models read it, and the helpers that fill a model's result. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/trace.h>
#include <tlreplay/tree.h>

#include "analysis/analysis_internal.h"
#include "perfmodel/perfmodel_internal.h"

int pm_call_of(const struct tl_trace *tr, uint64_t uid, struct pm_call *out)
{
	struct tl_event_info ev;
	cJSON *args = NULL;
	uint64_t *gpu = NULL;
	const char **names = NULL;
	int64_t n, i;
	int err;

	memset(out, 0, sizeof(*out));
	err = tl_trace_event(tr, uid, &ev);
	if (err)
		return err;
	err = tl_trace_event_args(tr, uid, &args);
	if (err)
		return err;
	n = tl_event_gpu_events(tr, uid, &gpu);
	if (n < 0) {
		err = (int)n;
		goto fail;
	}
	if (n) {
		names = calloc((size_t)n, sizeof(*names));
		if (!names) {
			err = -ENOMEM;
			goto fail;
		}
		for (i = 0; i < n; i++) {
			struct tl_event_info k;

			names[i] = tl_trace_event(tr, gpu[i], &k) ? "" : k.name;
		}
	}
	free(gpu);
	/* TraceLens's inference report drops sglang_profiler's call counters
	 * from cpu_op names (normalize_sglang_profiler_op_names, a pseudo-op
	 * pass) before its models see them; its plain report does not */
	out->name = ev.kind == TL_KIND_CPU_OP ? tl_op_view_name(tr, ev.name, out->name_buf, sizeof(out->name_buf))
					      : ev.name;
	out->annotation = pm_annotation_of(tr, uid, out->name);
	out->args = args;
	out->kernels = names;
	out->nkernels = (size_t)n;
	return 0;
fail:
	free(gpu);
	cJSON_Delete(args);
	return err;
}

void pm_call_release(struct pm_call *c)
{
	cJSON_Delete((cJSON *)c->args);
	free((void *)c->kernels);
	memset(c, 0, sizeof(*c));
}

/* Only the header: the 4 KiB of parameter text is written before it is
 * read, and a report initialises one of these per modelled call. */
void pm_out_init(struct pm_out *out)
{
	out->gflops = NAN;
	out->bytes = NAN;
	out->nparams = 0;
	out->compute_spec[0] = '\0';
	out->note[0] = '\0';
	out->text[0] = '\0';
	out->text_len = 0;
}

static int add_param(struct pm_out *out, const char *name, struct tl_cell v)
{
	if (out->nparams == PM_MAX_PARAMS)
		return -ENOSPC;
	out->param_names[out->nparams] = name;
	out->params[out->nparams++] = v;
	return 0;
}

int pm_param_num(struct pm_out *out, const char *name, double v)
{
	return add_param(out, name, tl_cell_num(v));
}

int pm_param_int(struct pm_out *out, const char *name, long long v)
{
	return add_param(out, name, tl_cell_int(v));
}

int pm_param_bool(struct pm_out *out, const char *name, int v)
{
	return add_param(out, name, tl_cell_bool(v));
}

int pm_param_str(struct pm_out *out, const char *name, const char *text)
{
	size_t len = strlen(text);
	char *dst = out->text + out->text_len;

	if (out->text_len + len + 1 > sizeof(out->text))
		return -ENOSPC;
	memcpy(dst, text, len + 1);
	out->text_len += len + 1;
	return add_param(out, name, tl_cell_str(dst));
}

int pm_fail(struct pm_out *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->note, sizeof(out->note), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const cJSON *pm_arg(const struct pm_call *c, const char *field)
{
	return c->args ? cJSON_GetObjectItemCaseSensitive(c->args, field) : NULL;
}

const cJSON *pm_arg_at(const struct pm_call *c, const char *field, int pos)
{
	const cJSON *a = pm_arg(c, field);

	if (!cJSON_IsArray(a) || pos < 0)
		return NULL;
	return cJSON_GetArrayItem(a, pos);
}

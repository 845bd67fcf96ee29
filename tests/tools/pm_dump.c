/* SPDX-License-Identifier: MIT */
/* pm_dump [--inference] [--capture DIR] TRACE UID...: what the perf models say of each
 * UID's call, one JSON object a line, for tests/conformance/compare_pm.py to
 * hold against TraceLens's perf-model sheets (its rows name their first call:
 * UID_first). --capture merges the graph-capture traces of DIR first, as
 * TraceLens's inference report does (their ops get UIDs past the trace's
 * events); --inference reads the trace as TraceLens's inference report does
 * (tr->inference_view). pm_dump --call NAME ARGS_JSON [KERNEL...] models a call built by
 * hand (args as the trace records them, the kernels' names in launch order).
 * A test tool, not installed. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/tlreplay.h>

#include "perfmodel/perfmodel_internal.h"
#include "trace/trace_internal.h"

static cJSON *num_or_null(double v)
{
	return isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

/* What the model of @call's class says, into @o. */
static void model(cJSON *o, const struct pm_call *call)
{
	const struct pm_class *cls;
	struct pm_out res;
	cJSON *params;
	char buf[64];
	size_t i;
	int err;

	cJSON_AddStringToObject(o, "name", call->name);
	cls = pm_class_of(call->name);
	if (!cls) {
		cJSON_AddNullToObject(o, "class");
		return;
	}
	cJSON_AddStringToObject(o, "class", cls->name);
	cJSON_AddStringToObject(o, "sheet", cls->sheet);
	cJSON_AddStringToObject(o, "sheet_inference", pm_sheet_inference(cls));
	cJSON_AddStringToObject(o, "category", cls->category);
	pm_out_init(&res);
	err = cls->model(call, &res);
	cJSON_AddNumberToObject(o, "rc", err);
	cJSON_AddStringToObject(o, "note", res.note);
	cJSON_AddItemToObject(o, "gflops", num_or_null(res.gflops));
	cJSON_AddItemToObject(o, "bytes", num_or_null(res.bytes));
	cJSON_AddStringToObject(o, "compute_spec", res.compute_spec);
	params = cJSON_AddArrayToObject(o, "params");
	for (i = 0; i < res.nparams; i++) {
		cJSON *p = cJSON_CreateArray();

		cJSON_AddItemToArray(p, cJSON_CreateString(res.param_names[i]));
		cJSON_AddItemToArray(p, cJSON_CreateString(tl_cell_text(&res.params[i], buf, sizeof(buf))));
		cJSON_AddItemToArray(params, p);
	}
}

static cJSON *dump(const struct tl_trace *tr, uint64_t uid)
{
	cJSON *o = cJSON_CreateObject();
	struct pm_call call;
	int err;

	cJSON_AddNumberToObject(o, "uid", (double)uid);
	err = pm_call_of(tr, uid, &call);
	if (err) {
		cJSON_AddStringToObject(o, "error", strerror(-err));
		return o;
	}
	model(o, &call);
	pm_call_release(&call);
	return o;
}

/* --call NAME ARGS_JSON [KERNEL...]: a call built by hand. */
static int dump_call(int argc, char **argv)
{
	struct pm_call call = { .name = argv[0] };
	cJSON *args = cJSON_Parse(argv[1]), *o;
	char *s;

	if (!args) {
		fprintf(stderr, "pm_dump: --call: the args are not JSON\n");
		return 1;
	}
	call.args = args;
	call.kernels = (const char *const *)(argv + 2);
	call.nkernels = (size_t)(argc - 2);
	o = cJSON_CreateObject();
	model(o, &call);
	s = cJSON_PrintUnformatted(o);
	puts(s ? s : "{}");
	free(s);
	cJSON_Delete(o);
	cJSON_Delete(args);
	return 0;
}

int main(int argc, char **argv)
{
	struct tl_trace *tr = NULL;
	const char *capture = NULL;
	bool inference = false;
	int i, err, first = 1;

	if (argc > 3 && !strcmp(argv[1], "--call"))
		return dump_call(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "--inference")) {
		inference = true;
		first = 2;
	}
	if (argc > first + 1 && !strcmp(argv[first], "--capture")) {
		capture = argv[first + 1];
		first += 2;
	}
	if (argc < first + 1) {
		fprintf(stderr, "usage: pm_dump [--inference] [--capture DIR] TRACE UID... | "
				"pm_dump --call NAME ARGS_JSON [KERNEL...]\n");
		return 2;
	}
	err = tl_trace_open(argv[first], NULL, &tr);
	if (!err)
		tr->inference_view = inference;
	if (!err && capture)
		err = tl_trace_merge_capture(tr, capture, NULL);
	if (!err)
		err = tl_trace_link(tr, NULL);
	if (err) {
		fprintf(stderr, "pm_dump: %s: %s\n", capture && err != -ENOMEM ? capture : argv[first],
			strerror(-err));
		tl_trace_close(tr);
		return 1;
	}
	for (i = first + 1; i < argc; i++) {
		cJSON *o = dump(tr, strtoull(argv[i], NULL, 10));
		char *s = cJSON_PrintUnformatted(o);

		puts(s ? s : "{}");
		free(s);
		cJSON_Delete(o);
	}
	tl_trace_close(tr);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* The "replay" request the library builds for the worker
 * (tl_replay_request): every parameter in its field, the entry by
 * reference, plugins made absolute, record_kernels on CUDA devices only,
 * lists copied so that the caller's may go. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <tlreplay/replay.h>

#include "tap.h"

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const char *str(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

int main(void)
{
	const char *plugins[] = { "tests/unit/tap.h" };
	cJSON *entry = cJSON_Parse("{\"op_name\":\"aten::add\",\"replay_ir\":{}}");
	cJSON *ns = cJSON_Parse("{\"tltest\":[\"/x/ops.py\"]}");
	struct tl_replay_params p = { .sz = sizeof(p), .device = "cuda:1", .warmup = 3, .iters = 7,
				      .min_time_s = 0.5, .flush_l2 = true, .seed = 42, .plugins = plugins,
				      .nplugins = 1, .init_kwargs = "{\"scale\": 2}", .namespaces = ns };
	cJSON *r = tl_replay_request(&p, entry), *again;
	const cJSON *pl;
	char *cwd = getcwd(NULL, 0);

	ok(r && !strcmp(str(r, "cmd"), "replay") && !strcmp(str(r, "device"), "cuda:1") && num(r, "warmup") == 3 &&
	   num(r, "iters") == 7 && num(r, "min_time_s") == 0.5 && num(r, "seed") == 42,
	   "the request carries the device, warmup, iters, min_time_s and seed");
	ok(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "flush_l2")) &&
	   cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, "cuda_graph")) &&
	   cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "record_kernels")),
	   "flags as given; record_kernels on a CUDA device");
	ok(cJSON_GetObjectItemCaseSensitive(r, "entry") &&
	   !strcmp(str(cJSON_GetObjectItemCaseSensitive(r, "entry"), "op_name"), "aten::add"),
	   "the entry is in the request");
	pl = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "init_plugins"), 0);
	ok(cJSON_IsString(pl) && pl->valuestring[0] == '/' && cwd && !strncmp(pl->valuestring, cwd, strlen(cwd)),
	   "a plugin given relative is sent absolute (%s)", cJSON_IsString(pl) ? pl->valuestring : "none");
	ok(num(cJSON_GetObjectItemCaseSensitive(r, "init_kwargs"), "scale") == 2, "init_kwargs parsed as JSON");
	cJSON_Delete(ns);	/* the request has its own copy */
	ok(!strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(
			   cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "namespaces"), "tltest"),
			   0)),
		   "/x/ops.py"),
	   "the namespaces are copied: the caller's list may go");
	cJSON_Delete(r);
	ok(entry && !strcmp(str(entry, "op_name"), "aten::add"), "deleting the request leaves the entry");

	p = (struct tl_replay_params){ .sz = sizeof(p) };
	again = tl_replay_request(&p, entry);
	ok(again && !strcmp(str(again, "device"), "cpu") &&
	   cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(again, "record_kernels")) &&
	   !cJSON_GetObjectItemCaseSensitive(again, "namespaces") &&
	   cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(again, "init_plugins")) == 0,
	   "no device: cpu, no kernels recorded, no lists");
	cJSON_Delete(again);
	cJSON_Delete(entry);
	free(cwd);
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/* The replay request and its policy (tlreplay/replay.h): what a "replay"
 * request carries, a crash or a timeout turned into a failed reply with the
 * worker restarted for the next op, and the device check against the
 * worker's hello. The command fills struct tl_replay_params from its options;
 * the Python end is tlreplay_replay/protocol.py. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include <tlreplay/replay.h>

#include "base/base_internal.h"

cJSON *tl_replay_request(const struct tl_replay_params *p, cJSON *entry)
{
	const char *device = p->device ? p->device : "cpu";
	cJSON *r = cJSON_CreateObject(), *pl;
	size_t i;

	if (!r)
		return NULL;
	cJSON_AddStringToObject(r, "cmd", "replay");
	cJSON_AddItemReferenceToObject(r, "entry", entry);
	cJSON_AddStringToObject(r, "device", device);
	cJSON_AddNumberToObject(r, "warmup", (double)p->warmup);
	cJSON_AddNumberToObject(r, "iters", (double)p->iters);
	cJSON_AddNumberToObject(r, "min_time_s", p->min_time_s);
	if (p->sz >= offsetof(struct tl_replay_params, plan_ctx) + sizeof(p->plan_ctx)) {
		if (p->budget_s > 0)
			cJSON_AddNumberToObject(r, "budget_s", p->budget_s);
		if (p->on_plan)
			cJSON_AddBoolToObject(r, "plan", true);
	}
	cJSON_AddBoolToObject(r, "flush_l2", p->flush_l2);
	cJSON_AddBoolToObject(r, "cuda_graph", p->cuda_graph);
	cJSON_AddBoolToObject(r, "record_kernels", !strncmp(device, "cuda", 4));
	cJSON_AddNumberToObject(r, "seed", (double)p->seed);
	cJSON_AddBoolToObject(r, "verbose", p->verbose);
	pl = cJSON_AddArrayToObject(r, "init_plugins");
	for (i = 0; i < p->nplugins; i++) {
		/* absolute: the worker may run elsewhere */
		char *abs = realpath(p->plugins[i], NULL);

		cJSON_AddItemToArray(pl, cJSON_CreateString(abs ? abs : p->plugins[i]));
		free(abs);
	}
	if (p->init_kwargs)
		cJSON_AddItemToObject(r, "init_kwargs", cJSON_Parse(p->init_kwargs));
	if (p->namespaces)
		cJSON_AddItemToObject(r, "namespaces", cJSON_Duplicate(p->namespaces, true));
	if (p->gpu_metrics) {
		cJSON_AddItemToObject(r, "gpu_metrics", cJSON_Duplicate(p->gpu_metrics, true));
		if (p->gpu_lib)
			cJSON_AddStringToObject(r, "gpu_lib", p->gpu_lib);
	}
	if (p->aliases)
		cJSON_AddItemToObject(r, "aliases", cJSON_Duplicate(p->aliases, true));
	return r;
}

static cJSON *failed_reply(const char *kind, const char *msg)
{
	cJSON *r = cJSON_CreateObject();

	if (r) {
		cJSON_AddStringToObject(r, "status", "failed");
		cJSON_AddStringToObject(r, "kind", kind);
		cJSON_AddStringToObject(r, "error", msg);
	}
	return r;
}

struct one_events {
	const struct tl_replay_params *p;
	tl_region_fn region;
	void *ctx;
};

static long plan_long(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
}

/* A replay's events: the region to its callback, the plan to on_plan */
static int one_event(const cJSON *msg, void *ctx)
{
	const struct one_events *o = ctx;
	const char *ev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "event"));

	if (!ev)
		return 0;
	if (!strcmp(ev, "plan") && o->p->on_plan) {
		const cJSON *asked = cJSON_GetObjectItemCaseSensitive(msg, "asked");
		struct tl_replay_plan pl = {
			.first_call_s = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(msg, "first_call_s")),
			.warmup = plan_long(msg, "warmup"),
			.iters = plan_long(msg, "iters"),
			.asked_warmup = plan_long(asked, "warmup"),
			.asked_iters = plan_long(asked, "iters"),
			.estimate_s = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(msg, "estimate_s")),
			.cut = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "cut")),
		};

		o->p->on_plan(&pl, o->p->plan_ctx);
		return 0;
	}
	if (o->region && !strcmp(ev, "region_begin"))
		return o->region(TL_REGION_BEGIN, o->ctx);
	if (o->region && !strcmp(ev, "region_end"))
		return o->region(TL_REGION_END, o->ctx);
	return 0;
}

cJSON *tl_replay_one(struct tl_worker *w, const struct tl_replay_params *p, cJSON *entry, tl_region_fn region,
		     void *ctx)
{
	cJSON *req = tl_replay_request(p, entry), *rep = NULL;
	struct one_events oe = { p, region, ctx };
	int err;

	if (!req)
		return NULL;
	if (region)
		cJSON_AddBoolToObject(req, "region", true);
	err = tl_worker_request_events(w, req, one_event, &oe, p->timeout_s, &rep);
	cJSON_Delete(req);	/* entry was added by reference: not freed */
	if (!err)
		return rep;
	rep = failed_reply(err == -ETIMEDOUT ? "timeout" : "crash", tl_last_error());
	/* the next op gets a fresh worker */
	if (rep && !tl_worker_alive(w) && tl_worker_restart(w))
		cJSON_AddStringToObject(rep, "restart_error", tl_last_error());
	return rep;
}

int tl_worker_check_device(const struct tl_worker *w, const char *device)
{
	const cJSON *h = tl_worker_hello(w), *cuda, *torch, *devs;

	if (!device || strncmp(device, "cuda", 4))
		return 0;
	cuda = cJSON_GetObjectItemCaseSensitive(h, "cuda");
	torch = cJSON_GetObjectItemCaseSensitive(h, "torch");
	devs = cJSON_GetObjectItemCaseSensitive(h, "devices");
	if (!cJSON_IsTrue(cuda) || cJSON_GetArraySize(devs) == 0)
		return tl_err(-ENODEV, "device %s: %s (torch %s) sees no CUDA/HIP device", device, tl_worker_python(w),
			      cJSON_IsString(torch) ? torch->valuestring : "?");
	if (device[4] == ':') {
		long idx = strtol(device + 5, NULL, 10);

		if (idx < 0 || idx >= cJSON_GetArraySize(devs))
			return tl_err(-ENODEV, "device %s: only %d device(s) visible", device,
				      cJSON_GetArraySize(devs));
	}
	return 0;
}

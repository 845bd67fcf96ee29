/* SPDX-License-Identifier: MIT */
/* Records of replays for the results store (results.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "replay/results.h"

static void add_time(cJSON *rec)
{
	struct timeval tv;
	struct tm tm;
	char buf[40], host[256];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%03ldZ", (long)(tv.tv_usec / 1000));
	cJSON_AddStringToObject(rec, "time", buf);
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "?");
	host[sizeof(host) - 1] = 0;
	cJSON_AddStringToObject(rec, "host", host);
	cJSON_AddNumberToObject(rec, "pid", (double)getpid());
}

static void copy_key(cJSON *to, const char *tokey, const cJSON *from, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(from, key);

	if (x)
		cJSON_AddItemToObject(to, tokey, cJSON_Duplicate(x, true));
}

/* The replay device's name from the worker's hello ("cpu" for the CPU). */
static const char *device_name(const struct replay_opts *ro, const cJSON *hello)
{
	long idx = 0;
	const cJSON *d;

	if (strncmp(ro->device, "cuda", 4))
		return "cpu";
	if (ro->device[4] == ':')
		idx = strtol(ro->device + 5, NULL, 10);
	d = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(hello, "devices"), (int)idx);
	d = cJSON_GetObjectItemCaseSensitive(d, "name");
	return cJSON_IsString(d) ? d->valuestring : "?";
}

cJSON *result_new(const char *command)
{
	cJSON *rec = cJSON_CreateObject();

	if (!rec)
		return NULL;
	cJSON_AddNumberToObject(rec, "v", TL_STORE_VERSION);
	add_time(rec);
	cJSON_AddStringToObject(rec, "command", command);
	cJSON_AddStringToObject(rec, "tlreplay", tl_version());
	return rec;
}

cJSON *result_record(const char *command, const struct replay_opts *ro, const struct tl_worker *w,
		     const cJSON *entry, const cJSON *reply, const struct result_src *src)
{
	const cJSON *hello = tl_worker_hello(w);
	cJSON *rec = result_new(command), *t;
	struct tl_stats s;

	if (!rec)
		return NULL;
	cJSON_AddStringToObject(rec, "python", tl_worker_python(w));
	copy_key(rec, "torch", hello, "torch");
	cJSON_AddStringToObject(rec, "device", ro->device);
	cJSON_AddStringToObject(rec, "device_name", device_name(ro, hello));
	if (src && src->trace_id)
		cJSON_AddItemToObject(rec, "trace", cJSON_Duplicate(src->trace_id, true));
	else
		cJSON_AddNullToObject(rec, "trace");
	if (src && src->ir_path) {
		cJSON *ir = cJSON_AddObjectToObject(rec, "ir");
		char *abs = realpath(src->ir_path, NULL);

		cJSON_AddStringToObject(ir, "path", abs ? abs : src->ir_path);
		cJSON_AddNumberToObject(ir, "index", (double)src->ir_index);
		free(abs);
	}
	copy_key(rec, "uid", entry, "uid");
	copy_key(rec, "op", entry, "op_name");
	copy_key(rec, "overload", entry, "overload");
	cJSON_AddStringToObject(rec, "status", reply_status(reply));
	copy_key(rec, "error", reply, "error");
	cJSON_AddNumberToObject(rec, "warmup", (double)ro->warmup);
	if (!strcmp(reply_status(reply), "ok")) {
		reply_stats(reply, &s);
		cJSON_AddNumberToObject(rec, "iters", (double)s.n);
		t = cJSON_AddObjectToObject(rec, "time_us");
		cJSON_AddNumberToObject(t, "median", s.median);
		cJSON_AddNumberToObject(t, "mean", s.mean);
		cJSON_AddNumberToObject(t, "std", isfinite(s.std) ? s.std : 0);
		cJSON_AddNumberToObject(t, "min", s.min);
		cJSON_AddNumberToObject(t, "max", s.max);
		copy_key(rec, "kernels", reply, "kernels");
		copy_key(rec, "kernel_us", reply, "kernel_us");
		if (kernel_verdict(entry, reply))
			cJSON_AddStringToObject(rec, "kernels_vs_trace", kernel_verdict(entry, reply));
	}
	copy_key(rec, "trace_gpu_us", entry, "gpu_time_us");
	return rec;
}

const cJSON *trace_ids_get(struct trace_ids *t, const cJSON *entry)
{
	const char *p = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(entry, "source"), "trace"));
	cJSON *id;

	if (!p || (!t->by_path && !(t->by_path = cJSON_CreateObject())))
		return NULL;
	id = cJSON_GetObjectItemCaseSensitive(t->by_path, p);
	if (!id) {
		if (tl_store_trace_id(p, &id))
			id = cJSON_CreateNull();
		if (!id || !cJSON_AddItemToObject(t->by_path, p, id)) {
			cJSON_Delete(id);
			return NULL;
		}
	}
	return cJSON_IsNull(id) ? NULL : id;
}

void trace_ids_free(struct trace_ids *t)
{
	cJSON_Delete(t->by_path);
	t->by_path = NULL;
}

int result_store(const struct replay_opts *ro, const cJSON *rec)
{
	const char *path = ro->store ? ro->store : tl_store_default_path();
	int err;

	if (ro->no_store || !rec)
		return 0;
	if (!path) {	/* no $HOME (a bare environment): say so, but the replay itself went fine */
		fprintf(stderr, "tlreplay: warning: no results store (no $HOME; set TLREPLAY_STORE or give "
			"--store FILE): the result is not recorded\n");
		return 0;
	}
	err = tl_store_append(path, rec);
	if (err)
		return cli_error("results store %s: %s (the result above was not recorded)", path,
				 *tl_last_error() ? tl_last_error() : strerror(-err));
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Where a replay's operator schemas come from (tlreplay/replay.h): the
 * worker's own torch, asked with the "schemas" request, or the newest
 * snapshot bundled beside the worker (core/replay/schemas, installed under
 * share/tlreplay/schemas). Only the schema strings cross here; turning them
 * into a schema database is ir's job, and the command joins the two (the
 * replay subsystem sits beside ir in the layering order, not above it). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include <tlreplay/replay.h>

#include "base/base_internal.h"

/* One allocation: the pointer array (NULL-terminated), then the strings. */
static char **pack_strings(const cJSON *list, size_t *n)
{
	size_t k = 0, bytes = 0;
	const cJSON *it;
	char **v, *p;

	cJSON_ArrayForEach(it, list)
		if (cJSON_IsString(it)) {
			k++;
			bytes += strlen(it->valuestring) + 1;
		}
	v = malloc((k + 1) * sizeof(*v) + bytes);
	if (!v)
		return NULL;
	p = (char *)(v + k + 1);
	k = 0;
	cJSON_ArrayForEach(it, list)
		if (cJSON_IsString(it)) {
			size_t len = strlen(it->valuestring) + 1;

			memcpy(p, it->valuestring, len);
			v[k++] = p;
			p += len;
		}
	v[k] = NULL;
	*n = k;
	return v;
}

int tl_worker_schemas(struct tl_worker *w, const cJSON *namespaces, double timeout_s, char ***schemas, size_t *n,
		      char *torch, size_t torch_sz)
{
	cJSON *req = cJSON_CreateObject(), *rep = NULL, *ns = NULL;
	const cJSON *list, *ver, *st;
	int err;

	*schemas = NULL;
	*n = 0;
	if (torch_sz)
		torch[0] = 0;
	if (req && namespaces)
		ns = cJSON_Duplicate(namespaces, true);
	if (!req || (namespaces && !ns)) {
		err = tl_err(-ENOMEM, "schemas request: out of memory");
		cJSON_Delete(ns);
		goto out;
	}
	cJSON_AddStringToObject(req, "cmd", "schemas");
	/* {ns: [modules]}: what the worker imports before listing */
	cJSON_AddItemToObject(req, "namespaces", ns ? ns : cJSON_CreateObject());
	err = tl_worker_request(w, req, NULL, NULL, timeout_s, &rep);
	if (err)
		goto out;
	st = cJSON_GetObjectItemCaseSensitive(rep, "status");
	list = cJSON_GetObjectItemCaseSensitive(rep, "schemas");
	ver = cJSON_GetObjectItemCaseSensitive(rep, "torch");
	if (!cJSON_IsString(st) || strcmp(st->valuestring, "ok") || !cJSON_IsArray(list)) {
		const cJSON *msg = cJSON_GetObjectItemCaseSensitive(rep, "error");

		err = cJSON_IsString(msg)
			      ? tl_err(-EPROTO, "schemas request: the worker refused: %s", msg->valuestring)
			      : tl_err(-EPROTO, "schemas request: the worker answered without a schema list");
		goto out;
	}
	*schemas = pack_strings(list, n);
	if (!*schemas) {
		err = tl_err(-ENOMEM, "schemas request: out of memory");
		goto out;
	}
	if (torch_sz)
		snprintf(torch, torch_sz, "%s", cJSON_IsString(ver) ? ver->valuestring : "?");
out:
	cJSON_Delete(req);
	cJSON_Delete(rep);
	return err;
}

const char *tl_schema_snapshot_path(void)
{
	/* per thread, as tl_worker_script_path's */
	static _Thread_local char best[PATH_MAX + 512];
	static const char *const rel[] = { "../share/tlreplay/schemas", "share/tlreplay/schemas",
					   "../core/replay/schemas", "../../core/replay/schemas" };
	const char *env = getenv("TLREPLAY_SCHEMAS");
	char dir[PATH_MAX - 64], sub[PATH_MAX];
	ssize_t len;
	size_t i;

	if (env && *env)
		return env;
	len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (len <= 0)
		return NULL;
	dir[len] = 0;
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = 0;
	best[0] = 0;
	/* the first folder that has snapshots; in it the newest torch (names
	 * sort by version: strverscmp) */
	for (i = 0; i < TL_ARRAY_SIZE(rel) && !best[0]; i++) {
		struct dirent *de;
		DIR *d;

		snprintf(sub, sizeof(sub), "%s/%s", dir, rel[i]);
		d = opendir(sub);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			const char *nm = de->d_name;

			if (strncmp(nm, "torch-", 6) || !strstr(nm, ".json"))
				continue;
			if (!best[0] || strverscmp(strrchr(best, '/') + 1, nm) < 0)
				snprintf(best, sizeof(best), "%s/%s", sub, nm);
		}
		closedir(d);
	}
	return best[0] ? best : NULL;
}

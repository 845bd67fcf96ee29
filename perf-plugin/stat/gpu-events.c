/* SPDX-License-Identifier: MIT */
/* Splitting event lists by who counts them (gpu-events.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tlreplay/counters.h>

#include "util/cli.h"
#include "stat/gpu-events.h"

/* Append @tok (@n bytes) to the comma list *list. */
static int append(char **list, const char *tok, size_t n)
{
	size_t old = *list ? strlen(*list) : 0;
	char *l = realloc(*list, old + n + 2);

	if (!l)
		return cli_error("out of memory");
	if (old)
		l[old++] = ',';
	memcpy(l + old, tok, n);
	l[old + n] = 0;
	*list = l;
	return 0;
}

static bool is_prefix(const char *tok, size_t n, const char *p)
{
	size_t m = strlen(p);

	return n >= m && !strncmp(tok, p, m);
}

/* One top-level item of the list: a perf event, a {group}, or one of ours. */
static int take(struct event_split *sp, const char *tok, size_t n)
{
	if (is_prefix(tok, n, "nvgpu")) {
		char *name = strndup(tok, n);

		if (!name || (!sp->gpu && !(sp->gpu = cJSON_CreateArray()))) {
			free(name);
			return cli_error("out of memory");
		}
		cJSON_AddItemToArray(sp->gpu, cJSON_CreateString(name));
		free(name);
		return 0;
	}
	if (is_prefix(tok, n, "nvml/")) {
		int dev = -1, used = 0;
		char *name = strndup(tok, n);

		if (!name)
			return cli_error("out of memory");
		if (sscanf(name, "nvml/energy-gpu%d/%n", &dev, &used) != 1 || (size_t)used != n || dev < 0) {
			cli_error("event '%s': the NVML event is nvml/energy-gpuN/ (N: the GPU)", name);
			free(name);
			return 1;
		}
		if (sp->energy_dev >= 0) {
			free(name);
			return cli_error("event '%.*s': one nvml/energy-gpuN/ event at most", (int)n, tok);
		}
		sp->energy_dev = dev;
		sp->energy_name = name;
		return 0;
	}
	if (tok[0] == '{' && (memmem(tok, n, "nvgpu", 5) || memmem(tok, n, "nvml/", 5)))
		return cli_error("event group '%.*s': GPU metrics and energy cannot be in a {group} with "
				 "CPU events (they are counted elsewhere)", (int)n, tok);
	return append(&sp->perf, tok, n);
}

int event_split(const char *events, struct event_split *sp)
{
	const char *p, *start;
	int depth = 0;
	bool in_pmu = false;

	memset(sp, 0, sizeof(*sp));
	sp->energy_dev = -1;
	if (!events)
		events = TL_COUNTERS_DEFAULT_EVENTS;
	/* commas split items, except inside {groups} and pmu/terms,.../ */
	for (p = start = events;; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}')
			depth--;
		else if (*p == '/')
			in_pmu = !in_pmu;
		if (*p && (*p != ',' || depth > 0 || in_pmu))
			continue;
		/* -e '', -e 'a,,b', -e 'a,': an error, as perf and the library's
		 * parser say for '{}' (nothing counted without a word was the bug) */
		if (p == start) {
			cli_error("bad event list \"%s\": an event is missing at column %zu", events,
				  (size_t)(p - events) + 1);
			event_split_free(sp);
			return 1;
		}
		if (take(sp, start, (size_t)(p - start))) {
			event_split_free(sp);
			return 1;
		}
		if (!*p)
			break;
		start = p + 1;
	}
	return 0;
}

void event_split_free(struct event_split *sp)
{
	free(sp->perf);
	free(sp->energy_name);
	cJSON_Delete(sp->gpu);
	memset(sp, 0, sizeof(*sp));
	sp->energy_dev = -1;
}

const char *gpu_lib_path(void)
{
	static const char *const rel[] = { "libtlreplay_gpu.so", "../lib/libtlreplay_gpu.so",
					   "../lib64/libtlreplay_gpu.so" };

	return cli_beside_exe(rel, TL_ARRAY_N(rel));
}

/* SPDX-License-Identifier: MIT */
/* The events of `stat -e` and `sweep -e` split by who counts them: perf
 * events by perf_event_open in tlreplay; GPU metrics ("nvgpu/<ncu metric>/",
 * "nvgpu0/.../") by CUPTI in the replay worker, which owns the CUDA context;
 * GPU energy ("nvml/energy-gpu0/") by NVML in tlreplay around the region. */
#ifndef TLREPLAY_GPU_EVENTS_H
#define TLREPLAY_GPU_EVENTS_H

#include <cjson/cJSON.h>

struct event_split {
	char *perf;		/* perf's event list, NULL when none is left */
	cJSON *gpu;		/* the GPU metric names as typed, NULL when none */
	int energy_dev;		/* N of nvml/energy-gpuN/, -1 when absent */
	char *energy_name;	/* as typed */
};

/* Split @events (perf syntax; NULL: perf stat's default set). Returns 0, or 1
 * after printing why (a GPU metric inside a {group}, a bad nvml/ name). */
int event_split(const char *events, struct event_split *sp);
void event_split_free(struct event_split *sp);

/* libtlreplay_gpu.so beside this tlreplay (build tree, install, bundle), or NULL. */
const char *gpu_lib_path(void);

#endif

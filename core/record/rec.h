/* SPDX-License-Identifier: MIT */
/* libtlreplay-record.so: the LD_PRELOAD recorder of `tlreplay record`
 * (docs/kernel-replay.md). It sits between a CUDA program and libcuda.so.1,
 * tracks modules, functions and device memory, and at the selected kernel
 * launch saves what is needed to run that launch again in another process.
 * It depends on libc only: the driver is found with dlopen/dlsym, JSON is
 * written by hand, blobs are named by their SHA-256.
 *
 * Files: rec_real.c (messages, and the real symbols under ours), rec_hooks.c
 * (the exported driver functions, cuGetProcAddress and dlsym), rec_tables.c
 * (modules, functions, allocations), rec_arena.c (where device memory
 * goes), rec_image.c (how long a module image
 * is), rec_nvinfo.c (a kernel's parameter layout from its image),
 * rec_capture.c (the recording of one launch), rec_db.c (blobs and the
 * launch's JSON), and core/src/common/sha256.c, shared with replay, which
 * checks the blobs against their names. No two depend on each other both
 * ways (tests/cli/test_record_layering.sh). */
#ifndef TLREPLAY_REC_H
#define TLREPLAY_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/kreplay.h>

#include "common/cuda_driver.h"
#include "common/sha256.h"

#define REC_EXPORT __attribute__((visibility("default")))

/* One line on stderr, prefixed "tlreplay-record: ". */
void rec_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the real driver and glibc (rec_real.c) */
/* The driver's own function @name (an exported name such as
 * "cuMemcpyDtoH_v2"), or NULL; found in libcuda.so.1 as loaded by the
 * program, never through our exports. */
void *rec_real(const char *name);
/* dlsym(RTLD_DEFAULT, @name) without our dlsym in the way. */
void *rec_real_global(const char *name);
/* dlsym(@handle, @name) without our dlsym in the way. */
void *rec_real_in(void *handle, const char *name);
/* glibc's dlsym, past ours; NULL if it cannot be found. */
typedef void *dlsym_fn(void *, const char *);
dlsym_fn *rec_real_dlsym(void);
/* libcuda.so.1 as the program loaded it (loaded here when it has not). */
void *rec_cuda_handle(void);

/* ---- tables (rec_tables.c); every function takes the tables' lock itself */
enum rec_image_kind { REC_IMG_FATBIN, REC_IMG_CUBIN, REC_IMG_PTX, REC_IMG_OTHER };

struct rec_image {
	const void *data;	/* the image, or the owned copy of it */
	size_t len;
	enum rec_image_kind kind;
	bool owned;
};

/* A module or library loaded from @img (copied unless it lies in a loaded
 * shared object, whose pages stay put). */
void rec_module_add(const void *handle, const void *img, size_t len, enum rec_image_kind kind);
void rec_module_drop(const void *handle);
/* @alias (cuLibraryGetModule's module) has the image of @handle. */
void rec_module_alias(const void *alias, const void *handle);
/* A function (or CUkernel) @fn named @name in module/library @module. */
void rec_function_add(const void *fn, const void *module, const char *name);
/* A CUkernel of library @library (cuLibraryGetKernel): launches may pass
 * it where a function goes. */
void rec_kernel_add(const void *kernel, const void *library, const char *name);
/* Alias @alias to what is known of @fn (cuKernelGetFunction). */
void rec_function_alias(const void *alias, const void *fn);
/* One launch of @fn: *@ordinal gets the launches of functions of its name
 * before this one (counted here, by name as the trace counts kernels), and
 * @select says, once per function, whether its name is one to record.
 * Returns -1 for a function never seen, else the verdict (0 or 1); when 1,
 * also its name (into @name), image and whether it is a CUkernel. */
int rec_function_launch(const void *fn, int (*select)(const char *name), char *name, size_t namelen,
			struct rec_image *img, bool *is_kernel, unsigned long *ordinal);

enum rec_mem_kind { REC_MEM_ALLOC, REC_MEM_ASYNC, REC_MEM_MAPPED };
struct rec_alloc {
	CUdeviceptr base;
	size_t size;
	enum rec_mem_kind kind;
};
void rec_alloc_add(CUdeviceptr base, size_t size, enum rec_mem_kind kind);
void rec_alloc_drop(CUdeviceptr base);
/* A sorted copy of the live allocations (free() it); NULL with *n = 0 when
 * there are none or memory is short. */
struct rec_alloc *rec_alloc_snapshot(size_t *n);

/* Texture and surface objects alive (cuTexObjectCreate, cuSurfObjectCreate). */
enum rec_object_kind {
	REC_OBJ_NONE,
	REC_OBJ_TEXTURE,
	REC_OBJ_SURFACE
};
void rec_object_add(uint64_t h, enum rec_object_kind kind);
void rec_object_drop(uint64_t h);
enum rec_object_kind rec_object_kind(uint64_t h);

/* ---- the arena (rec_arena.c): device memory at addresses a fresh process
 * can have. Each returns false when the arena does not take the call (off,
 * full, not ours, in a capture): the caller passes it to the driver. When
 * true, *@res is the call's result. */
bool rec_arena_alloc(CUdeviceptr *p, size_t n, CUstream s, bool stream_ordered, CUresult *res);
bool rec_arena_free(CUdeviceptr p, CUstream s, bool stream_ordered, CUresult *res);
/* cuMemAddressReserve / cuMemAddressFree of the program */
bool rec_arena_reserve(CUdeviceptr *p, size_t size, size_t align, CUresult *res);
bool rec_arena_address_free(CUdeviceptr p, size_t size, CUresult *res);
/* Whether the arena is in use, and where. */
bool rec_arena_range(CUdeviceptr *base, size_t *size);

/* ---- images (rec_image.c) */
/* The length of the module image at @img, and its kind; 0 when it cannot
 * be told (not a fatbin, ELF or PTX). A cudart fatbin wrapper is followed:
 * *@data then points at the fatbin it wraps. */
size_t rec_image_len(const void **data, enum rec_image_kind *kind);

/* ---- parameter layouts from images (rec_nvinfo.c) */
/* The layout of @kernel's parameters (offset, size; malloc'ed, by offset)
 * from the .nv.info section of its cubin: @image itself, or in a fatbin the
 * cubin for sm_@arch (90 for 9.0). 0, or -1 when the image does not say. */
int rec_nvinfo_layout(const void *image, size_t len, enum rec_image_kind kind, const char *kernel, int arch,
		      size_t (**out)[2], size_t *n);

/* ---- the launch (rec_capture.c) */
struct rec_launch {
	CUfunction f;
	unsigned grid[3], block[3], shared;
	CUstream stream;
	void **params;
	void **extra;
	const CUlaunchAttribute *attrs;
	unsigned nattrs;
	const char *api;	/* "cuLaunchKernel", ... */
};
/* Whether this launch is one to record (by name and count); when it is,
 * record it around @launch (which runs the real launch once and returns its
 * result). */
typedef CUresult (*rec_launch_fn)(const struct rec_launch *l, void *ctx);
CUresult rec_launch(const struct rec_launch *l, rec_launch_fn launch, void *ctx);

/* ---- the database (rec_db.c) */
/* The DB directory ($TLREPLAY_RECORD_DB), or NULL when unset. */
const char *rec_db_dir(void);
/* Write @len bytes as blobs/<sha256> (unless there); its hex name into
 * @hex (65 bytes). 0 or -errno. */
int rec_db_blob(const void *data, size_t len, char hex[65]);
/* A blob written in pieces: begin, add (any number), end. Without @write
 * it only hashes (to learn whether memory changed before storing it). */
struct rec_blob;
struct rec_blob *rec_blob_begin(bool write);
int rec_blob_add(struct rec_blob *b, const void *data, size_t len);
int rec_blob_end(struct rec_blob *b, char hex[65]);	/* frees @b; 0 or -errno */
/* Install the launch's JSON @json as launches/<pid>-<seq>.json (atomic). */
int rec_db_launch(const char *json, unsigned seq);

/* A growing string for the JSON (rec_db.c). */
struct rec_str {
	char *s;
	size_t len, cap;
	bool oom;
};
void rec_str_add(struct rec_str *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rec_str_json(struct rec_str *b, const char *s);	/* a quoted, escaped JSON string */

#endif

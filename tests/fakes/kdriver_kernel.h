/* SPDX-License-Identifier: MIT */
/* The ABI of "kernels" for the stand-in CUDA driver (tests/fakes/kdriver.c).
 *
 * A module image is an ELF shared object. A kernel NAME in it is an exported
 * function of type tlk_kernel_fn plus a string symbol NAME__tlk_params that
 * gives its parameter layout as "offset:size,offset:size,..." (the byte
 * offsets and sizes of the packed parameter buffer, as the CUDA ABI lays a
 * kernel's parameters out: each at its natural alignment; "" for none) and,
 * optionally, NAME__tlk_max_threads (threads per block; default 1024).
 *
 * The driver calls the function once per block, blocks in order (z, then y,
 * then x as the innermost loop), synchronously inside cuLaunchKernel; the
 * function runs the block's threads itself. `args` holds the packed
 * parameters (what CU_LAUNCH_PARAM_BUFFER_POINTER would carry); `shared`
 * points to `shared_bytes` zeroed bytes of dynamic shared memory (NULL when
 * shared_bytes is 0), fresh for each block.
 *
 *	TLK_KERNEL(saxpy, "0:4,8:8,16:8,24:4")
 *	{
 *		float a = TLK_ARG(float, args, 0);
 *		...
 *	}
 *	TLK_MAX_THREADS(saxpy, 256);
 *
 * No CUDA header is needed (nor wanted) here. */
#ifndef TLREPLAY_KDRIVER_KERNEL_H
#define TLREPLAY_KDRIVER_KERNEL_H

#include <string.h>

struct tlk_dim3 {
	unsigned x, y, z;
};

struct tlk_launch {
	struct tlk_dim3 grid;      /* gridDim */
	struct tlk_dim3 block;     /* blockDim */
	struct tlk_dim3 block_idx; /* blockIdx of this call */
	unsigned shared_bytes;     /* dynamic shared memory size */
	void *shared;              /* shared_bytes zeroed bytes, or NULL */
	unsigned cooperative;	   /* launched cooperatively (grid-wide sync allowed) */
};

typedef void tlk_kernel_fn(const struct tlk_launch *l, const unsigned char *args);

/* suffixes of the companion symbols the driver looks up */
#define TLK_PARAMS_SUFFIX "__tlk_params"
#define TLK_MAX_THREADS_SUFFIX "__tlk_max_threads"

#define TLK_EXPORT __attribute__((visibility("default")))

/* Defines kernel NAME with parameter layout PARAMS (a string literal); the
 * function body follows, with parameters `l` and `args`. */
#define TLK_KERNEL(name, params)                                               \
	TLK_EXPORT extern const char name##__tlk_params[];                     \
	TLK_EXPORT const char name##__tlk_params[] = params;                   \
	TLK_EXPORT void name(const struct tlk_launch *l,                       \
			     const unsigned char *args);                        \
	TLK_EXPORT void name(const struct tlk_launch *l, const unsigned char *args)

/* Limits kernel NAME to N threads per block (launches above fail). */
#define TLK_MAX_THREADS(name, n)                                               \
	TLK_EXPORT extern const unsigned name##__tlk_max_threads;              \
	TLK_EXPORT const unsigned name##__tlk_max_threads = (n)

/* Reads a parameter of TYPE at byte OFFSET of the packed buffer (memcpy: the
 * buffer need not be aligned for TYPE). */
#define TLK_ARG(type, args, offset)                                            \
	(__extension__({                                                       \
		type tlk_arg_v_;                                               \
		memcpy(&tlk_arg_v_, (args) + (offset), sizeof tlk_arg_v_);      \
		tlk_arg_v_;                                                    \
	}))

/* Threads in one block, blocks in the grid. */
static inline unsigned long long tlk_block_threads(const struct tlk_launch *l)
{
	return (unsigned long long)l->block.x * l->block.y * l->block.z;
}

static inline unsigned long long tlk_grid_blocks(const struct tlk_launch *l)
{
	return (unsigned long long)l->grid.x * l->grid.y * l->grid.z;
}

/* Linear index of this block in the grid (x fastest). */
static inline unsigned long long tlk_block_linear(const struct tlk_launch *l)
{
	return ((unsigned long long)l->block_idx.z * l->grid.y + l->block_idx.y) *
		       l->grid.x +
	       l->block_idx.x;
}

#endif

/* SPDX-License-Identifier: MIT */
/* Test kernels for the stand-in CUDA driver (kdriver.c), built as
 * libkkernels.so: that file's bytes are the "module image" kapp loads, as a
 * real program loads a cubin. Each kernel follows kdriver_kernel.h: called
 * once per block; it runs the block's threads in a loop. The layouts in the
 * __tlk_params strings are checked against C structs laid out as the CUDA
 * ABI lays out kernel parameters (natural alignment). */
#include <stddef.h>

#include "kdriver_kernel.h"

#define LAYOUT_CHECK(s, m, off, size)                                          \
	_Static_assert(offsetof(struct s, m) == (off) &&                       \
			       sizeof(((struct s *)0)->m) == (size),            \
		       #s "." #m " layout")

/* A thread's global linear index and the grid's thread count, for
 * grid-stride loops correct for any grid and block shape. */
static inline unsigned long long gtid(const struct tlk_launch *l, unsigned long long t)
{
	return tlk_block_linear(l) * tlk_block_threads(l) + t;
}

static inline unsigned long long gstride(const struct tlk_launch *l)
{
	return tlk_grid_blocks(l) * tlk_block_threads(l);
}

/* saxpy(float a, const float *x, float *y, int n): y[i] = a*x[i] + y[i],
 * grid-stride over every thread of every block. */
struct saxpy_args { float a; const float *x; float *y; int n; };
LAYOUT_CHECK(saxpy_args, a, 0, 4);
LAYOUT_CHECK(saxpy_args, x, 8, 8);
LAYOUT_CHECK(saxpy_args, y, 16, 8);
LAYOUT_CHECK(saxpy_args, n, 24, 4);
TLK_KERNEL(saxpy, "0:4,8:8,16:8,24:4")
{
	float a = TLK_ARG(float, args, 0);
	const float *x = TLK_ARG(const float *, args, 8);
	float *y = TLK_ARG(float *, args, 16);
	int n = TLK_ARG(int, args, 24);
	unsigned long long stride = gstride(l);

	for (unsigned long long t = 0; t < tlk_block_threads(l); t++)
		for (unsigned long long i = gtid(l, t); n > 0 && i < (unsigned long long)n; i += stride)
			y[i] = a * x[i] + y[i];
}

/* scale_fixed(float *y, int n, float s): NOT grid-stride. Thread x of block
 * x handles element blockIdx.x*blockDim.x + threadIdx.x only, so a grid too
 * small leaves elements unscaled. Only blocks and threads with y = z = 0
 * work (a 2-D shape must not scale an element twice). */
struct scale_fixed_args { float *y; int n; float s; };
LAYOUT_CHECK(scale_fixed_args, y, 0, 8);
LAYOUT_CHECK(scale_fixed_args, n, 8, 4);
LAYOUT_CHECK(scale_fixed_args, s, 12, 4);
TLK_KERNEL(scale_fixed, "0:8,8:4,12:4")
{
	float *y = TLK_ARG(float *, args, 0);
	int n = TLK_ARG(int, args, 8);
	float s = TLK_ARG(float, args, 12);

	if (l->block_idx.y != 0 || l->block_idx.z != 0)
		return;
	for (unsigned t = 0; t < l->block.x; t++) {
		unsigned long long i = (unsigned long long)l->block_idx.x * l->block.x + t;
		if (n > 0 && i < (unsigned long long)n)
			y[i] *= s;
	}
}

/* list_sum(const struct knode *head, float *out): out[0] = the sum of the
 * values of a linked list in device memory (block 0, thread 0 only). The
 * nodes are reached through pointers stored in device memory. */
struct knode {
	const struct knode *next;
	float value;
};
_Static_assert(sizeof(struct knode) == 16, "knode layout");
struct list_sum_args { const struct knode *head; float *out; };
LAYOUT_CHECK(list_sum_args, head, 0, 8);
LAYOUT_CHECK(list_sum_args, out, 8, 8);
TLK_KERNEL(list_sum, "0:8,8:8")
{
	const struct knode *p = TLK_ARG(const struct knode *, args, 0);
	float *out = TLK_ARG(float *, args, 8);
	float sum = 0.0f;

	if (tlk_block_linear(l) != 0)
		return;
	for (unsigned k = 0; p && k < (1u << 20); k++, p = p->next)
		sum += p->value;
	out[0] = sum;
}

/* accumulate(float *y, const float *x, int n): y[i] += x[i], grid-stride.
 * It writes an input: repeated launches change the result unless memory is
 * restored in between. */
struct accumulate_args { float *y; const float *x; int n; };
LAYOUT_CHECK(accumulate_args, y, 0, 8);
LAYOUT_CHECK(accumulate_args, x, 8, 8);
LAYOUT_CHECK(accumulate_args, n, 16, 4);
TLK_KERNEL(accumulate, "0:8,8:8,16:4")
{
	float *y = TLK_ARG(float *, args, 0);
	const float *x = TLK_ARG(const float *, args, 8);
	int n = TLK_ARG(int, args, 16);
	unsigned long long stride = gstride(l);

	for (unsigned long long t = 0; t < tlk_block_threads(l); t++)
		for (unsigned long long i = gtid(l, t); n > 0 && i < (unsigned long long)n; i += stride)
			y[i] += x[i];
}

/* small_block(float *y, int n): y[i] += 1, grid-stride; at most 256
 * threads per block. */
struct small_block_args { float *y; int n; };
LAYOUT_CHECK(small_block_args, y, 0, 8);
LAYOUT_CHECK(small_block_args, n, 8, 4);
TLK_MAX_THREADS(small_block, 256);
TLK_KERNEL(small_block, "0:8,8:4")
{
	float *y = TLK_ARG(float *, args, 0);
	int n = TLK_ARG(int, args, 8);
	unsigned long long stride = gstride(l);

	for (unsigned long long t = 0; t < tlk_block_threads(l); t++)
		for (unsigned long long i = gtid(l, t); n > 0 && i < (unsigned long long)n; i += stride)
			y[i] += 1.0f;
}

/* coop_mark(int *count): each block adds 1 when the launch is cooperative
 * and 1000 when it is not, so a cooperative launch replayed as a plain one
 * gives another count (a real kernel that syncs the grid would hang or
 * compute garbage). */
TLK_KERNEL(coop_mark, "0:8")
{
	int *count = TLK_ARG(int *, args, 0);

	*count += l->cooperative ? 1 : 1000;
}

/* rr_scale(float *y, const float *x, float a, int n): y = a*x + y,
 * grid-stride; tests/kreplay/cuda/rr_scale.cu's kernel, for rr_modload on
 * the stand-in. */
TLK_KERNEL(rr_scale, "0:8,8:8,16:4,20:4")
{
	float *y = TLK_ARG(float *, args, 0);
	const float *x = TLK_ARG(const float *, args, 8);
	float a = TLK_ARG(float, args, 16);
	int n = TLK_ARG(int, args, 20);
	unsigned long long stride = gstride(l);

	for (unsigned long long t = 0; t < tlk_block_threads(l); t++)
		for (unsigned long long i = gtid(l, t); n > 0 && i < (unsigned long long)n; i += stride)
			y[i] = a * x[i] + y[i];
}

/* handle_low(unsigned long long h, int *out): out[0] = the low 16 bits of h
 * (a texture or surface object's handle, as a kernel that samples it gets
 * one: a number that names an object of its process only). */
TLK_KERNEL(handle_low, "0:8,8:8")
{
	unsigned long long h = TLK_ARG(unsigned long long, args, 0);
	int *out = TLK_ARG(int *, args, 8);

	if (l->block_idx.x == 0)
		*out = (int)(h & 0xffff);
}

/* uses_shared(float *y, int n): y[i] = 2*y[i] + 1, grid-stride, staged
 * through dynamic shared memory: each tile of blockDim threads is loaded
 * into shared[t] by thread t, then written back by thread blockDim-1-t from
 * the other end of the tile. Needs shared_bytes >= 4 * threads per block;
 * with less it writes nothing. */
struct uses_shared_args { float *y; int n; };
LAYOUT_CHECK(uses_shared_args, y, 0, 8);
LAYOUT_CHECK(uses_shared_args, n, 8, 4);
TLK_KERNEL(uses_shared, "0:8,8:4")
{
	float *y = TLK_ARG(float *, args, 0);
	int n = TLK_ARG(int, args, 8);
	unsigned long long nt = tlk_block_threads(l);
	unsigned long long stride = gstride(l);
	float *sh = l->shared;

	if (!sh || l->shared_bytes / sizeof(float) < nt || n <= 0)
		return;
	for (unsigned long long base = tlk_block_linear(l) * nt; base < (unsigned long long)n;
	     base += stride) {
		unsigned long long cnt = (unsigned long long)n - base < nt ? (unsigned long long)n - base : nt;
		/* "__syncthreads()" between the two loops */
		for (unsigned long long t = 0; t < cnt; t++)
			sh[t] = y[base + t];
		for (unsigned long long t = 0; t < cnt; t++) {
			unsigned long long m = cnt - 1 - t; /* thread t writes element m */
			y[base + m] = 2.0f * sh[m] + 1.0f;
		}
	}
}

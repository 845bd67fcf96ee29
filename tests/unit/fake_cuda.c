/* SPDX-License-Identifier: MIT */
/* A stand-in for libcuda.so.1, built as a shared object for test_gpu and
 * the worker's GPU-metric tests ($TLREPLAY_CUDA_LIB points at it): the
 * driver calls libtlreplay_gpu.so makes, on $FAKE_CUDA_DEVICES devices
 * (default 1), with counters the tests read back (synchronizations, the
 * context stack, primary-context retains). No CUDA header needed. */
#include <stdlib.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct fake_ctx *CUcontext;

struct fake_ctx { int device; };

#define OK 0
#define ERR_INVALID_VALUE 1
#define ERR_INVALID_CONTEXT 201
#define ERR_INVALID_DEVICE 101

static struct fake_ctx ctxs[8];
static CUcontext stack[16];
static int depth, syncs, retained;

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGetCount(int *n);
CUresult cuDeviceGet(CUdevice *dev, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult cuCtxPushCurrent_v2(CUcontext ctx);
CUresult cuCtxPopCurrent_v2(CUcontext *ctx);
CUresult cuCtxSynchronize(void);
CUresult cuGetErrorString(CUresult r, const char **s);
int fake_cuda_syncs(void);
int fake_cuda_depth(void);
int fake_cuda_retained(void);

static int ndev(void)
{
	const char *s = getenv("FAKE_CUDA_DEVICES");
	int n = s ? atoi(s) : 1;

	return n < 0 ? 0 : n > 8 ? 8 : n;
}

CUresult cuInit(unsigned int flags)
{
	return flags ? ERR_INVALID_VALUE : OK;
}

CUresult cuDeviceGetCount(int *n)
{
	*n = ndev();
	return OK;
}

CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
	if (ordinal < 0 || ordinal >= ndev())
		return ERR_INVALID_DEVICE;
	*dev = ordinal;
	return OK;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	(void)dev;
	if (len > 0)
		name[0] = '\0';
	return OK;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
	if (dev < 0 || dev >= ndev())
		return ERR_INVALID_DEVICE;
	ctxs[dev].device = dev;
	*ctx = &ctxs[dev];
	retained++;
	return OK;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	(void)dev;
	retained--;
	return OK;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
	if (!ctx || depth >= 16)
		return ERR_INVALID_CONTEXT;
	stack[depth++] = ctx;
	return OK;
}

CUresult cuCtxPopCurrent_v2(CUcontext *ctx)
{
	if (!depth)
		return ERR_INVALID_CONTEXT;
	*ctx = stack[--depth];
	return OK;
}

CUresult cuCtxSynchronize(void)
{
	if (!depth)
		return ERR_INVALID_CONTEXT;	/* no current context: a bug in the caller */
	syncs++;
	return OK;
}

CUresult cuGetErrorString(CUresult r, const char **s)
{
	switch (r) {
	case OK: *s = "no error"; break;
	case ERR_INVALID_DEVICE: *s = "invalid device ordinal"; break;
	case ERR_INVALID_CONTEXT: *s = "invalid device context"; break;
	default: *s = "unknown error"; break;
	}
	return OK;
}

int fake_cuda_syncs(void)
{
	return syncs;
}

int fake_cuda_depth(void)
{
	return depth;
}

int fake_cuda_retained(void)
{
	return retained;
}

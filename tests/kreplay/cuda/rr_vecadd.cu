// SPDX-License-Identifier: MIT
// A cudart program for kernel record/replay (issue 27.1): cudaMalloc, a
// kernel launched with <<<>>>, cudaMemcpy, cudaFree, as PyTorch's ATen does
// through cudart. Built with -cudart shared and -cudart static (build.sh).
// Prints "rr_vecadd: checksum=HEX" (a hash of every output byte), or the
// failing call and its error with exit 1.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void rr_vecadd(const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		out[i] = x[i] * 2.0f + y[i];
}

#define CK(call)                                                                              \
	do {                                                                                  \
		cudaError_t e_ = (call);                                                      \
		if (e_ != cudaSuccess) {                                                      \
			fprintf(stderr, "rr_vecadd: %s: %s (%d)\n", #call, cudaGetErrorString(e_), \
				(int)e_);                                                     \
			return 1;                                                             \
		}                                                                             \
	} while (0)

int main()
{
	const int n = 1 << 20;
	float *hx = (float *)malloc(n * 4), *hy = (float *)malloc(n * 4), *ho = (float *)malloc(n * 4);
	float *x, *y, *out, *tmp;
	uint64_t h = 1469598103934665603ULL;

	for (int i = 0; i < n; i++) {
		hx[i] = (float)(i % 97) * 0.5f;
		hy[i] = (float)(i % 13) - 6.0f;
	}
	CK(cudaMalloc(&x, n * 4));
	CK(cudaMalloc(&y, n * 4));
	CK(cudaMalloc(&out, n * 4));
	CK(cudaMalloc(&tmp, 4096));	// freed before the launches: its memory comes back
	CK(cudaFree(tmp));
	CK(cudaMemcpy(x, hx, n * 4, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(y, hy, n * 4, cudaMemcpyHostToDevice));
	for (int it = 0; it < 3; it++) {
		rr_vecadd<<<264, 256>>>(x, y, out, n);
		CK(cudaGetLastError());
		CK(cudaMemcpy(y, out, n * 4, cudaMemcpyDeviceToDevice));
	}
	CK(cudaMemcpy(ho, out, n * 4, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < (size_t)n * 4; i++)
		h = (h ^ ((unsigned char *)ho)[i]) * 1099511628211ULL;
	CK(cudaFree(x));
	CK(cudaFree(y));
	CK(cudaFree(out));
	free(hx);
	free(hy);
	free(ho);
	printf("rr_vecadd: checksum=%016llx\n", (unsigned long long)h);
	return 0;
}

// SPDX-License-Identifier: MIT
// A cuBLAS program for kernel record/replay (issue 27.1): one SGEMM of
// 512x512 matrices, three times, as torch.mm does through cuBLAS (whose
// kernels live in libcublasLt's fatbins and its workspace in cudaMalloc'ed
// memory). Prints "rr_gemm: checksum=HEX", or the failing call with exit 1.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>

int main()
{
	const int n = 512;
	size_t bytes = (size_t)n * n * 4;
	float *ha = (float *)malloc(bytes), *hb = (float *)malloc(bytes), *hc = (float *)malloc(bytes);
	float *a, *b, *c, one = 1.0f, zero = 0.0f;
	cublasHandle_t blas;
	uint64_t h = 1469598103934665603ULL;

	for (int i = 0; i < n * n; i++) {
		ha[i] = (float)(i % 7) * 0.25f;
		hb[i] = (float)(i % 5) - 2.0f;
	}
	if (cudaMalloc(&a, bytes) || cudaMalloc(&b, bytes) || cudaMalloc(&c, bytes)) {
		fprintf(stderr, "rr_gemm: cudaMalloc failed: %s\n", cudaGetErrorString(cudaGetLastError()));
		return 1;
	}
	if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "rr_gemm: cublasCreate failed\n");
		return 1;
	}
	cudaMemcpy(a, ha, bytes, cudaMemcpyHostToDevice);
	cudaMemcpy(b, hb, bytes, cudaMemcpyHostToDevice);
	for (int it = 0; it < 3; it++)
		if (cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n) !=
		    CUBLAS_STATUS_SUCCESS) {
			fprintf(stderr, "rr_gemm: cublasSgemm failed\n");
			return 1;
		}
	if (cudaMemcpy(hc, c, bytes, cudaMemcpyDeviceToHost)) {
		fprintf(stderr, "rr_gemm: %s\n", cudaGetErrorString(cudaGetLastError()));
		return 1;
	}
	for (size_t i = 0; i < bytes; i++)
		h = (h ^ ((unsigned char *)hc)[i]) * 1099511628211ULL;
	cublasDestroy(blas);
	cudaFree(a);
	cudaFree(b);
	cudaFree(c);
	free(ha);
	free(hb);
	free(hc);
	printf("rr_gemm: checksum=%016llx\n", (unsigned long long)h);
	return 0;
}

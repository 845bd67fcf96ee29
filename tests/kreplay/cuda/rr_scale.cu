// SPDX-License-Identifier: MIT
// The kernel rr_modload loads: compiled alone to a cubin (build.sh), as
// Triton compiles its kernels and hands the driver the bytes.
extern "C" __global__ void rr_scale(float *y, const float *x, float a, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		y[i] = a * x[i] + y[i];
}

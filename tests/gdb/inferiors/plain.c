/* SPDX-License-Identifier: MIT */
/* A C program with no PyTorch op on its stack, for the gdb tests: `tlreplay
 * here` in work() has no op to name; in cudaLaunchKernel() (a stand-in with
 * the CUDA runtime's name) it sees a kernel launch with no op above it. */
#include <stdio.h>

int cudaLaunchKernel(const void *func, unsigned grid, unsigned block, void **args,
		     unsigned long shmem, void *stream);

int cudaLaunchKernel(const void *func, unsigned grid, unsigned block, void **args,
		     unsigned long shmem, void *stream)
{
	(void)args;
	(void)shmem;
	(void)stream;
	return func != NULL && grid * block > 0 ? 0 : 1;
}

static int work(int n)
{
	volatile int s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += i;
	return s;
}

int main(void)
{
	int rc = cudaLaunchKernel((const void *)work, 1, 32, NULL, 0, NULL);

	printf("%d %d\n", work(10), rc);
	return 0;
}

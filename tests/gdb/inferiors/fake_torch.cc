// SPDX-License-Identifier: MIT
// Frames named as libtorch names them, without libtorch, for the gdb tests:
// at::_ops::addmm::call -> at::native::addmm_out_cpu -> cudaLaunchKernel (a
// stand-in), called four times, then at::_ops::add_Tensor::call once. The
// arguments are plain ints, not tensors: `tlreplay here` must say that the
// shapes come from the trace.
#include <cstdio>

extern "C" int cudaLaunchKernel(const void *func, unsigned grid, unsigned block, void **args,
				unsigned long shmem, void *stream);

extern "C" __attribute__((noinline)) int cudaLaunchKernel(const void *func, unsigned grid,
							  unsigned block, void **args,
							  unsigned long shmem, void *stream)
{
	(void)args;
	(void)shmem;
	(void)stream;
	return func != nullptr && grid * block > 0 ? 0 : 1;
}

namespace at {
namespace native {
__attribute__((noinline)) int addmm_out_cpu(int call)
{
	static int kernel;
	return cudaLaunchKernel(&kernel, 1 + call, 128, nullptr, 0, nullptr);
}
} // namespace native

namespace _ops {
struct addmm {
	static int call(int n);
};
__attribute__((noinline)) int addmm::call(int n)
{
	return native::addmm_out_cpu(n);
}

struct add_Tensor {
	static int call(int n);
};
__attribute__((noinline)) int add_Tensor::call(int n)
{
	return n + 1;
}
} // namespace _ops
} // namespace at

int main()
{
	int s = 0;

	for (int i = 0; i < 4; i++)
		s += at::_ops::addmm::call(i);
	s += at::_ops::add_Tensor::call(s);
	std::printf("%d\n", s);
	return 0;
}

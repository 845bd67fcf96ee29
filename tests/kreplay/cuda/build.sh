#!/bin/sh
# SPDX-License-Identifier: MIT
# build.sh OUT: the real CUDA programs of kernel record/replay (issue 27.1),
# built with the CUDA toolkit's nvcc ($NVCC, else nvcc on PATH, else
# /usr/local/cuda/bin/nvcc) into OUT:
#   rr_vecadd_shared, rr_vecadd_static   cudart (shared, static) + a kernel
#   rr_gemm                              cuBLAS SGEMM
#   rr_modload, rr_scale.cubin           driver API: module image from a file,
#                                        expandable-segment (VMM) memory
# $CUDA_ARCH (default sm_90) is the cubin's and the kernels' architecture.
# Exit 77 when no nvcc is found (the caller skips), 1 when a build fails.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-$(command -v nvcc || true)}
[ -n "$nvcc" ] || nvcc=/usr/local/cuda/bin/nvcc
if [ ! -x "$nvcc" ]; then
	echo "build.sh: no nvcc (set NVCC)" >&2
	exit 77
fi
cuda=$(cd "$(dirname "$nvcc")/.." && pwd)
arch=${CUDA_ARCH:-sm_90}
mkdir -p "$out"
"$nvcc" -O2 -arch="$arch" -cudart shared -o "$out/rr_vecadd_shared" "$here/rr_vecadd.cu"
"$nvcc" -O2 -arch="$arch" -cudart static -o "$out/rr_vecadd_static" "$here/rr_vecadd.cu"
"$nvcc" -O2 -arch="$arch" -o "$out/rr_gemm" "$here/rr_gemm.cu" -lcublas
"$nvcc" -O2 -arch="$arch" -cubin -o "$out/rr_scale.cubin" "$here/rr_scale.cu"
# linked against the toolkit's stub libcuda; at run time libcuda.so.1 is the
# driver's (or the stand-in's, through LD_LIBRARY_PATH)
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -I"$cuda/include" -o "$out/rr_modload" "$here/rr_modload.c" \
	-L"$cuda/lib64/stubs" -L"$cuda/lib64" -lcuda

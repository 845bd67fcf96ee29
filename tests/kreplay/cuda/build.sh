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
# A program whose library the toolkit lacks is not built and is named in
# OUT/missing. Exit 77 when no nvcc is found (the caller skips), 1 when a
# build fails with what it needs there.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-$(command -v nvcc || true)}
[ -n "$nvcc" ] || nvcc=/usr/local/cuda/bin/nvcc
if [ ! -x "$nvcc" ]; then
	echo "build.sh: no nvcc (set NVCC)" >&2
	exit 77
fi
# the toolkit's folder: nvcc's own, through any link on PATH (/usr/local/bin/nvcc -> ...)
cuda=$(cd "$(dirname "$(readlink -f "$nvcc")")/.." && pwd)
arch=${CUDA_ARCH:-sm_90}
mkdir -p "$out"
: >"$out/missing"
# build PROG LIBRARY-FILE CMD...: PROG; when that fails and the toolkit has
# no LIBRARY-FILE (one may ship nvcc without cuBLAS or the static cudart), a
# line in OUT/missing; a build that fails with its library there fails the
# script
failed=0
build() {
	prog=$1
	lib=$2
	shift 2
	"$@" 2>"$out/$prog.log" && return 0
	if [ -n "$lib" ] && [ ! -e "$cuda/$lib" ]; then
		echo "$prog: not built, the toolkit has no $lib" | tee -a "$out/missing" >&2
		return 0
	fi
	echo "build.sh: building $prog failed: $*" >&2
	cat "$out/$prog.log" >&2
	failed=1
}
set +e
build rr_vecadd_shared lib64/libcudart.so "$nvcc" -O2 -arch="$arch" -cudart shared -o "$out/rr_vecadd_shared" "$here/rr_vecadd.cu"
build rr_vecadd_static lib64/libcudart_static.a "$nvcc" -O2 -arch="$arch" -cudart static -o "$out/rr_vecadd_static" "$here/rr_vecadd.cu"
build rr_gemm lib64/libcublas.so "$nvcc" -O2 -arch="$arch" -o "$out/rr_gemm" "$here/rr_gemm.cu" -lcublas
build rr_scale.cubin "" "$nvcc" -O2 -arch="$arch" -cubin -o "$out/rr_scale.cubin" "$here/rr_scale.cu"
# needs nothing of the toolkit: it dlopens libcuda.so.1 at run time, the
# driver's (or the stand-in's, through LD_LIBRARY_PATH), and takes its types
# from cuda.h, or from our own declarations where the toolkit has no cuda.h
# (a toolkit may ship neither it nor a stub libcuda: both come with
# cuda-driver-dev)
build rr_modload "" ${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -I"$cuda/include" \
	-I"$here/../../../core/src/common" -o "$out/rr_modload" "$here/rr_modload.c" -ldl
exit $failed

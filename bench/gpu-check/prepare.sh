#!/bin/sh
# Assemble the folder `make gpu-check` carries to a GPU machine (docs/gpu-check.md):
#     sh bench/gpu-check/prepare.sh BUNDLE BUILD SHARED OUT
# BUNDLE: the relocatable bundle (make bundle); BUILD: the build folder (for the stand-in
# libraries); SHARED: ../shared (the H100 traces are copied from it); OUT: the folder to make.
# The folder is made beside OUT and renamed into place, so a failure leaves the old one whole.
set -eu
bundle=$1 build=$2 shared=$3 out=$4
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$out.tmp.$$
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$tmp/traces" "$tmp/standin"
cp -a "$bundle" "$tmp/tlreplay"
cp "$src/bench/gpu-check/run.sh" "$src/bench/gpu-check/gpu_check.py" "$src/bench/gpu-check/kreplay_prog.py" \
	"$src/bench/gpu-check/self_model.py" "$src/bench/gpu-check/arena_probe.py" \
	"$src/scripts/gen_schema_snapshot.py" \
	"$src/tests/gdb/inferiors/addmm_model.py" "$tmp/"
mkdir -p "$tmp/cuda"
cp "$src"/tests/kreplay/cuda/*.cu "$src"/tests/kreplay/cuda/*.c "$src"/tests/kreplay/cuda/build.sh "$tmp/cuda/"
cp "$src/tests/replay/standin/python" "$src/tests/replay/standin/standin_python.py" \
	"$src/tests/replay/standin/ncu" "$src/tests/replay/standin/nvidia-smi" \
	"$src/tests/replay/fake_torch_cuda.py" "$tmp/standin/"
for lib in libfake_cuda.so libfake_cupti.so libfake_nvml.so; do
	if [ -f "$build/tests/$lib" ]; then
		cp "$build/tests/$lib" "$tmp/standin/"
	fi
done
# the stand-in driver and its program, for the kreplay phase's dry run
if [ -x "$build/tests/kdrv/kapp" ]; then
	mkdir -p "$tmp/standin/kdrv"
	cp "$build/tests/kdrv/kapp" "$build/tests/kdrv/libkkernels.so" "$build/tests/kdrv/libcuda.so.1" "$tmp/standin/kdrv/"
fi
n=0
if [ -d "$shared/traces/TraceLens/tests/traces/h100" ]; then
	for t in "$shared"/traces/TraceLens/tests/traces/h100/*.json.gz; do
		[ -f "$t" ] || continue
		cp "$t" "$tmp/traces/"
		n=$((n + 1))
	done
fi
cat >"$tmp/README.txt" <<EOT
tlreplay GPU check ($(date -u +%Y-%m-%d), $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown))

On a GPU machine with python3 + torch (CUDA) on PATH, nothing to install:
    sh run.sh -o OUT            # about 8 minutes; OUT/report.md and OUT/raw.tar.gz
    sh run.sh --help
Dry run here, against the stand-ins in standin/:
    sh run.sh --stand-ins -o OUT
traces/: $n H100 trace(s) copied from $shared.
EOT
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "gpu-check: $out ($n trace(s)); on the GPU machine: sh $out/run.sh -o OUT" >&2
if [ "$n" -eq 0 ]; then
	echo "gpu-check: warning: no H100 trace under $shared/traces/TraceLens/tests/traces/h100" >&2
fi

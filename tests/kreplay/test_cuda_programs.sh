#!/bin/sh
# Real CUDA programs under the kernel recorder (issue 27.1), built with the
# CUDA toolkit's nvcc (tests/kreplay/cuda/build.sh; skipped without one) and
# run against the stand-in driver (tests/fakes/kdriver.c):
# - rr_modload, a driver-API program as Triton's launcher and PyTorch's
#   expandable segments are (module image from the heap, VMM memory mapped in
#   chunks, kernelParams and cuLaunchKernelEx), runs whole: recorded under
#   valgrind, same checksum, every launch replayed bit-exactly;
# - rr_vecadd (cudart shared and static) and rr_gemm (cuBLAS) get as far as
#   cudart goes on the stand-in: through some 330 cuGetProcAddress lookups,
#   each answered through the recorder, to cudart's private export tables
#   (cuGetExportTable), which only NVIDIA's driver has; recorded, they end
#   exactly as without the recorder, valgrind clean. On a GPU the GPU check
#   runs them whole (docs/gpu-check.md, the kreplay phase).
. "$(dirname "$0")/../taplib.sh"

use_kdrv
cd "$TMP" || exit 1

# build.sh on a toolkit without cuBLAS (an nvcc that cannot link it, a toolkit folder without
# it) and without cuda.h or a stub libcuda (rr_modload needs neither): that program is named in OUT/missing,
# the rest built; with cuBLAS there, a failed build fails the script and shows why
mkdir -p "$TMP/tk/bin" "$TMP/tk/lib64" "$TMP/tk/include"
cat >"$TMP/tk/bin/nvcc" <<'EOF'
#!/bin/sh
# a stand-in nvcc: cannot link cuBLAS, "builds" the rest
case " $* " in *" -lcublas "*) echo "ld: cannot find -lcublas" >&2; exit 1 ;; esac
while [ $# -gt 0 ]; do [ "$1" = -o ] && : >"$2"; shift; done
exit 0
EOF
chmod +x "$TMP/tk/bin/nvcc"
for f in lib64/libcudart.so lib64/libcudart_static.a; do : >"$TMP/tk/$f"; done
# nvcc reached through a link elsewhere (as /usr/local/bin/nvcc may be): the toolkit is the link's target's
mkdir -p "$TMP/linkbin" && ln -s "$TMP/tk/bin/nvcc" "$TMP/linkbin/nvcc"
NVCC=$TMP/linkbin/nvcc CC=$TMP/tk/bin/nvcc sh "$ROOT/tests/kreplay/cuda/build.sh" "$TMP/tkout" >"$TMP/tk.log" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$TMP/tkout/missing")" = "rr_gemm: not built, the toolkit has no lib64/libcublas.so" ] &&
	[ -e "$TMP/tkout/rr_vecadd_static" ] && [ -e "$TMP/tkout/rr_modload" ] && ! [ -e "$TMP/tkout/rr_gemm" ]
ok $? "build.sh, nvcc through a link, toolkit without cuBLAS, cuda.h or a stub libcuda: rr_gemm named as not built, the others built, exit 0"
: >"$TMP/tk/lib64/libcublas.so"
NVCC=$TMP/tk/bin/nvcc CC=$TMP/tk/bin/nvcc sh "$ROOT/tests/kreplay/cuda/build.sh" "$TMP/tkout" >"$TMP/tk.log" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^build.sh: building rr_gemm failed: ' "$TMP/tk.log" && grep -q 'cannot find -lcublas' "$TMP/tk.log"
ok $? "build.sh, cuBLAS there but its build fails: exit 1, the command and the linker's words"
sh "$ROOT/tests/kreplay/cuda/build.sh" "$TMP/cuda" >"$TMP/build.log" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
	skip "no CUDA toolkit (nvcc) to build the programs"
	done_testing
fi
C=$TMP/cuda
[ $rc -eq 0 ] && [ -x "$C/rr_modload" ]
ok $? "the programs build with nvcc: cudart shared and static, cuBLAS, a driver-API module loader$(
	[ -s "$C/missing" ] && printf ' (not built: %s)' "$(cut -d: -f1 "$C/missing" | tr '\n' ' ')")"
[ $rc -eq 0 ] && [ -x "$C/rr_modload" ] || { sed 's/^/# /' "$TMP/build.log" >&2; done_testing; }
export LD_LIBRARY_PATH=$K${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
VG=
command -v valgrind >/dev/null 2>&1 && VG="valgrind -q --error-exitcode=9"

run "$C/rr_modload" "$K/libkkernels.so"
want=$(cat "$TMP/out")
[ "$RC" -eq 0 ] && case $want in "rr_modload: checksum="*) true ;; *) false ;; esac
ok $? "rr_modload runs on the stand-in: $want"
# as a toolkit without cuda.h builds it (cuda-driver-dev not installed): our declarations of the
# driver's ABI instead, the same result
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -I"$ROOT/core/src/common" -o "$C/rr_modload_own" \
	"$ROOT/tests/kreplay/cuda/rr_modload.c" -ldl 2>"$TMP/own.log"
run "$C/rr_modload_own" "$K/libkkernels.so"
[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = "$want" ] && ! grep -q cuda.h "$TMP/own.log"
ok $? "rr_modload built without cuda.h (core/src/common/cuda_driver.h's types): the same checksum"
run "$TLREPLAY" record -k rr_scale --count 0 -o dbm -- $VG "$C/rr_modload" "$K/libkkernels.so"
[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = "$want" ] && grep -q '4 launches recorded into dbm' "$TMP/err" &&
	! grep -q '^==[0-9]*==' "$TMP/err"
ok $? "rr_modload recorded${VG:+ under valgrind}: exit 0, the same checksum, 4 launches, no memory error"
[ "$RC" -eq 0 ] || sed -n 1,20p "$TMP/err" | sed 's/^/# /' >&2
run "$TLREPLAY" kreplay dbm --verify --no-store
[ "$RC" -eq 0 ] && [ "$(grep -c '^  verify match' "$TMP/out")" = 4 ] &&
	[ "$(grep -c "in the recorder's arena at 0x200000000000" "$TMP/out")" = 4 ]
ok $? "kreplay: its four launches replay bit-exactly, their VMM chunks and buffer from the arena"

# the same program built with ASan and UBSan, the recorder preloaded ahead of the sanitizer's
# runtime: the runtime finds what it intercepts through dlsym(RTLD_NEXT) before the recorder's
# constructor has run (it once looped there forever), and then sees every heap call of the
# recorder too
cuda=$(cd "$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")/.." && pwd)
if ${CC:-cc} -std=c11 -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -I"$cuda/include" -I"$ROOT/core/src/common" \
	-o "$C/rr_modload_asan" "$ROOT/tests/kreplay/cuda/rr_modload.c" -ldl 2>"$TMP/asan.log"; then
	ASAN_OPTIONS=verify_asan_link_order=0:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1 \
		run timeout 300 "$TLREPLAY" record -k rr_scale --count 0 -o dbasan -- "$C/rr_modload_asan" "$K/libkkernels.so"
	[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = "$want" ] && grep -q '4 launches recorded into dbasan' "$TMP/err" &&
		! grep -q 'ERROR: AddressSanitizer\|runtime error:\|LeakSanitizer' "$TMP/err"
	ok $? "rr_modload built with ASan and UBSan, recorded: the same checksum, no sanitizer report"
	[ "$RC" -eq 0 ] || sed -n 1,20p "$TMP/err" | sed 's/^/# /' >&2
else
	skip "no ASan here: $(head -1 "$TMP/asan.log")"
fi

# cudart on the stand-in: a CUDA 13 cudart wants a 13.0 driver, then NVIDIA's private tables
export FAKE_KDRV_VERSION=13000
for p in rr_vecadd_shared rr_vecadd_static rr_gemm; do
	if [ ! -x "$C/$p" ]; then
		skip "$(grep "^$p:" "$C/missing")"
		continue
	fi
	run "$C/$p"
	plain_rc=$RC
	plain_err=$(grep "^rr_" "$TMP/err")
	case $p in rr_vecadd_static) vg=$VG ;; *) vg= ;; esac
	run "$TLREPLAY" record -k . -o "db_$p" -- $vg "$C/$p"
	[ "$plain_rc" -eq 1 ] && [ -n "$plain_err" ] && [ "$(grep "^rr_" "$TMP/err")" = "$plain_err" ] &&
		grep -q "record: $C/$p exited with status 1\|record: valgrind exited with status 1" "$TMP/err" &&
		! grep -q '^==[0-9]*==' "$TMP/err"
	ok $? "$p recorded${vg:+ under valgrind}: cudart's lookups pass through the recorder, it ends as without it ($plain_err)"
done
done_testing

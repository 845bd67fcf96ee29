#!/bin/sh
# Kernel record and replay (docs/kernel-replay.md) without a GPU: a test
# program (tests/fakes/kapp.c) runs on the stand-in driver (kdriver.c), whose
# "kernels" are host functions in an ELF module image; `tlreplay record`
# preloads the recorder into it, `tlreplay kreplay` replays the recorded
# launches in a fresh process at their recorded addresses, verifies them,
# searches launch configurations, and folds the times into a trace.
. "$(dirname "$0")/../taplib.sh"

use_kdrv
IMG=$K/libkkernels.so
cd "$TMP" || exit 1

# field FILE EXPR: a value of the JSON in FILE (python expression over j)
field() {
	"$PYTHON" -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

run "$K/kapp" "$IMG"
base=$(cat "$TMP/out")
[ "$RC" -eq 0 ] && case $base in "kapp: checksum="*) true ;; *) false ;; esac
ok $? "the test program runs on the stand-in driver: $base"

# ---------------------------------------------------------------- record
run "$TLREPLAY" record -k '^saxpy$' --nth 1 -o db1 -- "$K/kapp" "$IMG"
[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = "$base" ]
ok $? "record: exit 0 and the program computes what it computes without the recorder"
grep -q "1 launch recorded into db1" "$TMP/err" && grep -q "tlreplay-record: recorded saxpy (launch 1 of it" "$TMP/err"
ok $? "record: says what it recorded"
[ -f db1/index.json ] && [ ! -d db1/launches ] && [ "$(field db1/index.json 'len(j["launches"])')" = 1 ]
ok $? "record: the launch is gathered into index.json"
# saxpy's second launch of an iteration goes through cuLaunchKernelEx, which
# the program found through dlsym(libcuda, "cuGetProcAddress_v2"), as cudart does
[ "$(field db1/index.json 'j["launches"][0]["api"]')" = cuLaunchKernelEx ] &&
	[ "$(field db1/index.json 'j["launches"][0]["attrs"][0]["id"]')" = 4 ]
ok $? "record: a launch reached through dlsym + cuGetProcAddress is seen, with its cluster attribute"
[ "$(field db1/index.json 'j["launches"][0]["params"]["layout"]')" = "[[0, 4], [8, 8], [16, 8], [24, 4]]" ]
ok $? "record: the argument layout from cuFuncGetParamInfo"
[ "$(field db1/index.json 'j["launches"][0]["stream"]')" = "legacy default" ]
ok $? "record: the kind of stream the launch went to (NULL: the legacy default stream)"
n=$(field db1/index.json 'len(j["launches"][0]["memory"])')
nb=$(ls db1/blobs | wc -l)
[ "$n" -ge 8 ] && [ "$nb" -lt $((2 * n + 2)) ]
ok $? "record: every live allocation is saved ($n), unchanged ones once ($nb blobs)"
field db1/index.json 'j["launches"][0]["source"]["command"][0]' | grep -q kapp
ok $? "record: the index says which command was recorded"

# another preloaded library that finds what it wraps with dlsym(RTLD_NEXT):
# the recorder's dlsym must not stand in as its caller
cat >wrapfopen.c <<'EOC'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
static int calls;
FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);

	if (!real)
		real = (FILE * (*)(const char *, const char *))dlsym(RTLD_NEXT, "fopen");
	calls++;
	return real(path, mode);
}
__attribute__((destructor)) static void bye(void)
{
	if (calls)
		fprintf(stderr, "wrapfopen: %d calls\n", calls);
}
EOC
if ${CC:-cc} -shared -fPIC -o wrapfopen.so wrapfopen.c 2>/dev/null; then
	LD_PRELOAD=$TMP/wrapfopen.so ASAN_OPTIONS=verify_asan_link_order=0 \
		run "$TLREPLAY" record -k '^saxpy$' -o dbwrap -- "$K/kapp" "$IMG"
	[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = "$base" ] && grep -q 'wrapfopen: [1-9]' "$TMP/err"
	ok $? "record: a library preloaded after the recorder gets the right dlsym(RTLD_NEXT)"
else
	skip "no C compiler for the preloaded wrapper"
fi

# every kernel of the program, every launch
run "$TLREPLAY" record -k . --count 0 -o dball "$K/kapp" "$IMG" 3
[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = "$base" ]
ok $? "record --count 0 (every launch; options end at the command): the same results"
nall=$(field dball/index.json 'len(j["launches"])')
kinds=$(field dball/index.json '" ".join(sorted(set(l["kernel"] for l in j["launches"])))')
[ "$nall" -ge 20 ] && [ "$kinds" = "accumulate list_sum saxpy scale_fixed small_block uses_shared" ]
ok $? "record: $nall launches of $kinds"
[ "$(field dball/index.json 'j["launches"][0]["stream"]')" = created ]
ok $? "record: a launch on a stream the program created"

# ---------------------------------------------------------------- replay
run "$TLREPLAY" kreplay dball --verify -r 3 --warmup 1
[ "$RC" -eq 0 ] && [ "$(grep -c '^  verify match' "$TMP/out")" = "$nall" ]
ok $? "kreplay --verify: every launch replays bit-exactly in a fresh process"
[ "$RC" -eq 0 ] || sed -n 1,40p "$TMP/out" "$TMP/err" | sed 's/^/# /' >&2
grep -A4 '^list_sum' "$TMP/out" | grep -q 'verify match'
ok $? "kreplay: a kernel that follows pointers stored in device memory (a linked list) replays"
grep -A4 '^accumulate' "$TMP/out" | grep -q 'verify match'
ok $? "kreplay: a kernel that writes its input, launched 3 times, still matches (inputs restored)"
awk '/^uses_shared/{getline; print}' "$TMP/out" | grep -q '65536 B shared'
ok $? "kreplay: the 64 KiB dynamic shared memory launch is allowed as the program allowed it"
run "$TLREPLAY" kreplay dball -k saxpy --launch 0 --device cuda:0 --verify --no-store
r1=$RC
run "$TLREPLAY" kreplay dball -k saxpy --launch 0 --device 0 --verify --no-store
r2=$RC
run "$TLREPLAY" kreplay dball -k saxpy --launch 0 --device cpu --no-store
[ "$r1$r2" = 00 ] && [ "$RC" -eq 1 ] && grep -q "bad --device 'cpu' (cuda or cuda:N" "$TMP/err"
ok $? "kreplay --device: cuda:0 as the replay commands name it, 0 as before, cpu refused ($(tail -1 "$TMP/err"))"

run "$TLREPLAY" kreplay dball -k list_sum -x, -r 2 --warmup 0 --verify
[ "$RC" -eq 0 ] && head -1 "$TMP/out" | grep -q '^launch,kernel,grid,block,shared_bytes,device,iters,median_us' &&
	[ "$(grep -c ',list_sum,1x1x1,32x1x1,0,tlreplay stand-in GPU,2,' "$TMP/out")" = 3 ] &&
	[ "$(grep -c ',match$' "$TMP/out")" = 3 ]
ok $? "kreplay -x, -k: a header and one row per launch of the kernel"
run "$TLREPLAY" kreplay dball --launch 0 -j -r 2
"$PYTHON" -c "import json,sys; r=json.loads(open(sys.argv[1]).read()); assert r['launch']==0 and r['iters']==2 and r['median_us']>0" "$TMP/out"
ok $? "kreplay -j --launch 0: one JSON object"
n=$(grep -c '"command":"kreplay"' "$TMP/store.jsonl")
[ "$n" -ge $((nall + 4)) ] && grep '"command":"kreplay"' "$TMP/store.jsonl" | tail -1 | grep -q '"kdb":{"path":"'"$TMP"'/dball","launch":0}'
ok $? "kreplay: every result is in the results store ($n records), with its database and launch"

# --args-only: only what the arguments reach, transitively
run "$TLREPLAY" record -k list_sum --args-only -o dbargs "$K/kapp" "$IMG"
nm=$(field dbargs/index.json 'len(j["launches"][0]["memory"])')
[ "$RC" -eq 0 ] && [ "$nm" = 4 ] && [ "$(field dbargs/index.json 'j["launches"][0]["snapshot"]')" = args ]
ok $? "record --args-only: the output and the three allocations of the list only ($nm)"
run "$TLREPLAY" kreplay dbargs --verify
[ "$RC" -eq 0 ] && grep -q 'verify match (4 allocations' "$TMP/out"
ok $? "kreplay: the --args-only recording replays"

# ---------------------------------------------------------------- verification
cp -r dball bad
blob=$(field bad/index.json '[l for l in j["launches"] if l["kernel"]=="saxpy"][0]["memory"][0]["before"]')
chmod u+w "bad/blobs/$blob"
# the lowest byte of x[0]: y[0] = a*x[0] + y[0] moves by a few ulps; the
# blob renamed to its new SHA-256 (and the index with it), or replay would
# refuse it as corrupt (test_kdb_parts.sh)
printf '\001' | dd of="bad/blobs/$blob" bs=1 seek=0 conv=notrunc 2>/dev/null
sum=$(sha256sum "bad/blobs/$blob" | cut -c1-64)
mv "bad/blobs/$blob" "bad/blobs/$sum" && sed -i "s/$blob/$sum/g" bad/index.json
run "$TLREPLAY" kreplay bad -k saxpy --launch 0 --verify --no-store
[ "$RC" -eq 1 ] && grep -q 'verify DIFFERS' "$TMP/out" && grep -q 'allocation 0x[0-9a-f]* ([0-9]* bytes): [0-9]* bytes differ, the first at +' "$TMP/out"
ok $? "kreplay --verify: changed inputs give other outputs: exit 1, the allocation is named"
run "$TLREPLAY" kreplay bad -k saxpy --launch 0 --verify --no-store --tolerance 1e-5
[ "$RC" -eq 0 ] && grep -q 'verify match' "$TMP/out"
ok $? "kreplay --tolerance: differences within the tolerance are accepted"
run "$TLREPLAY" kreplay dball --verify --tolerance x
[ "$RC" -eq 1 ] && grep -q "bad --tolerance 'x'" "$TMP/err"
ok $? "kreplay: a bad --tolerance is refused"

# ---------------------------------------------------------------- grid search
i=$(field dball/index.json '[n for n,l in enumerate(j["launches"]) if l["kernel"]=="scale_fixed"][0]')
run "$TLREPLAY" kreplay dball --launch "$i" --grid 2,2048 --block 128,256,2048 -r 2 --chart grid.svg
[ "$RC" -eq 0 ] && head -1 "$TMP/out" | grep -q '^kernel,grid,block,shared_bytes,status,median_us,mean_us,std_us,min_us,verify,speedup,why$'
ok $? "kreplay --grid/--block: CSV with a header"
sed -n 2p "$TMP/out" | grep -q '^scale_fixed,2048x1x1,256x1x1,0,ok,.*,match,1.0,$'
ok $? "grid search: the recorded configuration first, as the baseline"
grep -q '^scale_fixed,2x1x1,256x1x1,0,ok,.*,differs,' "$TMP/out"
ok $? "grid search: a grid too small for a kernel without a grid-stride loop is caught by verification"
grep -q '^scale_fixed,2048x1x1,2048x1x1,0,refused,,,,,,,block 2048x1x1 has 2048 threads; scale_fixed takes at most 1024 per block$' "$TMP/out"
ok $? "grid search: a configuration the kernel cannot take is refused with the reason"
grep -q '<svg' grid.svg && grep -q 'configurations' grid.svg
ok $? "grid search --chart: an SVG of time per configuration"
i=$(field dball/index.json '[n for n,l in enumerate(j["launches"]) if l["kernel"]=="small_block"][0]')
run "$TLREPLAY" kreplay dball --launch "$i" --block 128,512 -r 2
grep -q '^small_block,32x1x1,128x1x1,0,ok,.*,match,' "$TMP/out" &&
	grep -q '^small_block,32x1x1,512x1x1,0,refused,.*takes at most 256 per block$' "$TMP/out"
ok $? "grid search: the kernel's own thread limit (cuFuncGetAttribute) is honoured"

# ---------------------------------------------------------------- pack
run "$TLREPLAY" pack -o kernels.zip --kdb dball
[ "$RC" -eq 0 ] && grep -q "packed $nall kernel launches into kernels.zip" "$TMP/err"
ok $? "pack --kdb: every launch in a zip"
mkdir unpacked && (cd unpacked && unzip -q ../kernels.zip) && [ -f unpacked/kernels/replay.c ] &&
	[ -f unpacked/kernels/Makefile ] && [ -f unpacked/kernels/README.md ] && [ -f unpacked/kernels/launch-0.txt ]
ok $? "pack --kdb: replay.c, Makefile, README.md, launch-N.txt"
if command -v make >/dev/null && (cd unpacked/kernels && make -s >"$TMP/make.log" 2>&1); then
	good=0
	i=0
	while [ $i -lt "$nall" ]; do
		(cd unpacked/kernels && ./replay launch-$i.txt 2) >"$TMP/rep.out" 2>&1 &&
			grep -q 'outputs match the recording' "$TMP/rep.out" && good=$((good + 1))
		i=$((i + 1))
	done
	[ "$good" = "$nall" ]
	ok $? "the packed C replayer builds with make and replays every launch bit-exactly ($good of $nall)"
	after=$(sed -n 's/^mem \([0-9a-f]*\) [0-9]* \([0-9a-f]*\) \([0-9a-f]*\)$/\2 \3/p' unpacked/kernels/launch-0.txt |
		awk '$1 != $2 {print $2; exit}')
	printf 'X' | dd of="unpacked/kernels/blobs/$after" bs=1 seek=0 conv=notrunc 2>/dev/null
	(cd unpacked/kernels && ./replay launch-0.txt 2) >"$TMP/rep.out" 2>&1
	[ $? -eq 1 ] && grep -q 'differs from the recorded output' "$TMP/rep.out" && grep -q 'outputs DIFFER' "$TMP/rep.out"
	ok $? "the packed replayer says when outputs differ (exit 1)"
else
	ok 1 "the packed C replayer builds with make: $(cat "$TMP/make.log")"
fi
run "$TLREPLAY" pack -o one.zip --kdb dball --launch 99999
[ "$RC" -eq 1 ] && grep -q "pack: bad --launch '99999'" "$TMP/err" && [ ! -e one.zip ]
ok $? "pack --launch out of range: refused, no zip"
run "$TLREPLAY" pack -o one.zip --launch 1
[ "$RC" -eq 1 ] && grep -q 'pack: --launch picks a launch of --kdb DB' "$TMP/err"
ok $? "pack --launch without --kdb: refused"

# ---------------------------------------------------------------- counters
run "$TLREPLAY" kreplay dball --launch 0 -e task-clock,page-faults -r 5
[ "$RC" -eq 0 ] && grep -q 'Performance counter stats for .tlreplay kreplay. (saxpy on tlreplay stand-in GPU, 5 calls per run' "$TMP/out" &&
	grep -q 'task-clock' "$TMP/out"
ok $? "kreplay -e: perf stat's table over the timed launches"
tail -1 "$TMP/store.jsonl" | grep -q '"counters":\[{"event":"task-clock"'
ok $? "kreplay -e: the counters are stored with the result"

run "$TLREPLAY" stat -e task-clock,page-faults -r 3 --iters 4 --warmup 1 kreplay dball 0
[ "$RC" -eq 0 ] && grep -q "Performance counter stats for 'tlreplay kreplay dball 0' (saxpy on tlreplay stand-in GPU, 4 calls per run, 3 runs)" "$TMP/err" &&
	grep -q 'seconds time elapsed  ( +-' "$TMP/err"
ok $? "stat kreplay DB N: perf stat's table over the timed launches of a recorded launch, -r runs"
tail -1 "$TMP/store.jsonl" | grep -q '"command":"stat".*"kdb":{"path":"'"$TMP"'/dball","launch":0}.*"counters":\['
ok $? "stat kreplay: the result is stored with its counters"
run "$TLREPLAY" stat -j -e task-clock kreplay dball
[ "$RC" -eq 1 ] && grep -q "stat: dball holds $nall launches: which one? (tlreplay stat ... kreplay DB N)" "$TMP/err"
ok $? "stat kreplay DB: a database of several launches needs N"
run "$TLREPLAY" stat -i trace.json kreplay dball 0
[ "$RC" -eq 1 ] && grep -q 'stat: kreplay replays a recorded launch: -i' "$TMP/err"
ok $? "stat kreplay: uid's options are refused"

# GPU metrics through libtlreplay_gpu.so, on the stand-in CUPTI and driver
if [ -f "$B/libtlreplay_gpu.so" ] && [ -f "$B/tests/libfake_cupti.so" ]; then
	TLREPLAY_CUPTI_LIB=$B/tests/libfake_cupti.so run "$TLREPLAY" kreplay dball --launch 0 -r 2 -j --no-store \
		-e 'task-clock,nvgpu/dram__bytes_read.sum/,nvgpu/not__a_metric.sum/,nvgpu3/dram__bytes_read.sum/'
	"$PYTHON" - "$TMP/out" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read())
c = {x["event"]: x for x in r["counters"]}
assert list(c) == ["task-clock", "nvgpu/dram__bytes_read.sum/", "nvgpu/not__a_metric.sum/",
                   "nvgpu3/dram__bytes_read.sum/"], list(c)
assert c["nvgpu/dram__bytes_read.sum/"]["status"] == "counted" and c["nvgpu/dram__bytes_read.sum/"]["value"] > 0
assert c["nvgpu/not__a_metric.sum/"]["status"] == "not supported"
assert c["nvgpu3/dram__bytes_read.sum/"]["status"] == "not supported"
PY
	ok $? "kreplay -e nvgpu/METRIC/: CUPTI passes of one launch each; unknown metrics and other devices <not supported>"
else
	skip "libtlreplay_gpu.so or the stand-in CUPTI is not built (no CUDA headers)"
fi

# a name with the characters of a regular expression is also a name
run "$TLREPLAY" kreplay dball -k 'list_sum(' -r 1 --warmup 0 --no-store
[ "$RC" -eq 1 ] && grep -q "no launch in dball matches list_sum(" "$TMP/err"
ok $? "kreplay -k: a pattern that is neither a regular expression nor a name matches nothing, said"
run "$TLREPLAY" kreplay dball -k 'list_sum' -r 1 --warmup 0 --no-store -x,
[ "$RC" -eq 0 ] && [ "$(grep -c ',list_sum,' "$TMP/out")" = 3 ]
ok $? "kreplay -k NAME"

# ---------------------------------------------------------------- from a trace
cat >trace.json <<'EOT'
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "app::step", "pid": 1, "tid": 1, "ts": 90, "dur": 60, "args": {"External id": 1}},
 {"ph": "X", "cat": "kernel", "name": "saxpy", "pid": 0, "tid": 7, "ts": 100, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 11}},
 {"ph": "X", "cat": "kernel", "name": "scale_fixed", "pid": 0, "tid": 7, "ts": 110, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 12}},
 {"ph": "X", "cat": "kernel", "name": "saxpy", "pid": 0, "tid": 7, "ts": 120, "dur": 7.5, "args": {"device": 0, "stream": 7, "correlation": 13}}
]}
EOT
run "$TLREPLAY" record -i trace.json --uid 3 -o dbuid "$K/kapp" "$IMG"
[ "$RC" -eq 0 ] && grep -q 'recording launch 1 of saxpy' "$TMP/err" &&
	[ "$(field dbuid/index.json 'j["launches"][0]["ordinal"]')" = 1 ] &&
	[ "$(field dbuid/index.json 'j["launches"][0]["source"]["uid"]')" = 3 ] &&
	[ "$(field dbuid/index.json 'j["launches"][0]["source"]["trace_us"]')" = 7.5 ]
ok $? "record --uid: the trace's kernel, the same launch of it (its ordinal in the trace), with the trace's time"
run "$TLREPLAY" kreplay dbuid -r 3
[ "$RC" -eq 0 ] && grep -q '  trace  7.500 us (UID 3); replay/trace ' "$TMP/out"
ok $? "kreplay: replay time beside the trace's"
run "$TLREPLAY" fold -i trace.json -o folded.json
[ "$RC" -eq 0 ] && "$PYTHON" -c "
import json,sys
e = json.load(open('folded.json'))['traceEvents'][3]
t = e['args']['tlreplay']['replays'][0]
assert t['command'] == 'kreplay' and t['time_us']['median'] > 0 and t['kernels_vs_trace'] == 'MATCH', t
"
ok $? "fold: the kernel replay's time lands on the trace's kernel event"

# ---------------------------------------------------------------- bad input
run "$TLREPLAY" record -k nosuchkernel -o dbnone "$K/kapp" "$IMG"
[ "$RC" -eq 1 ] && grep -q "no launch was recorded (no launch of a kernel matching 'nosuchkernel' after 0" "$TMP/err" &&
	[ "$(cat "$TMP/out")" = "$base" ]
ok $? "record: nothing matched: exit 1, one line, the program ran as usual"
run "$TLREPLAY" record -k x -o dbtrue -- /bin/true
[ "$RC" -eq 1 ] && grep -q 'no launch was recorded' "$TMP/err"
ok $? "record: a program without CUDA runs under the recorder"
run "$TLREPLAY" record -k x -o dbno -- ./no-such-program
[ "$RC" -eq 127 ] || [ "$RC" -eq 1 ]
grep -q 'cannot run ./no-such-program' "$TMP/err"
ok $? "record: a command that cannot run is named"
run "$TLREPLAY" record -o x "$K/kapp"
[ "$RC" -eq 1 ] && grep -q 'give one of --kernel REGEX and --uid UID' "$TMP/err"
ok $? "record: a selection is required"
run "$TLREPLAY" record -i trace.json --uid 99 "$K/kapp"
[ "$RC" -eq 1 ] && grep -q 'trace.json has no event with UID 99' "$TMP/err"
ok $? "record --uid: a missing UID is named"
FAKE_KDRV_NO_PARAMINFO=1 run "$TLREPLAY" record -k '^saxpy$' -o dbold "$K/kapp" "$IMG"
[ "$RC" -eq 1 ] && grep -q 'cannot record saxpy: the driver does not give the parameter layout (cuFuncGetParamInfo, CUDA 12.4), nor does its module image' "$TMP/err" &&
	[ "$(cat "$TMP/out")" = "$base" ]
ok $? "record: a driver without cuFuncGetParamInfo: kernelParams launches cannot be recorded, said once; results unchanged"
FAKE_KDRV_NO_PARAMINFO=1 run "$TLREPLAY" record -k scale_fixed -o dbold2 "$K/kapp" "$IMG"
[ "$RC" -eq 0 ]
ok $? "record: ... but a launch with its argument buffer (extra) is recorded"

run env TLREPLAY_CUDA_LIB=$TMP/nolib.so "$TLREPLAY" kreplay dball --launch 0
[ "$RC" -eq 1 ] && grep -q "no CUDA driver: cannot load $TMP/nolib.so" "$TMP/err"
ok $? "kreplay: no driver: one line, exit 1"
run "$TLREPLAY" kreplay nodb
[ "$RC" -eq 1 ] && grep -q 'nodb: no kernel record database' "$TMP/err"
ok $? "kreplay: not a database"
cp -r dball broken
echo '{"v": 1, "launches": [{"kernel": "saxpy"}]}' >broken/index.json
run "$TLREPLAY" kreplay broken
[ "$RC" -eq 1 ] && grep -q 'broken: launch 0: saxpy: grid and block must be three positive numbers' "$TMP/err"
ok $? "kreplay: a malformed index names the launch"
head -c 100 dball/index.json >broken/index.json
run "$TLREPLAY" kreplay broken
[ "$RC" -eq 1 ] && grep -q 'broken/index.json: not valid JSON' "$TMP/err"
ok $? "kreplay: a truncated index"
cp -r dball gone
rm "gone/blobs/$(field gone/index.json 'j["launches"][0]["module"]["blob"]')"
run "$TLREPLAY" kreplay gone --launch 0
[ "$RC" -eq 1 ] && grep -q 'missing from the database' "$TMP/err"
ok $? "kreplay: a missing blob is named"
run "$TLREPLAY" kreplay dball --launch 9999
[ "$RC" -eq 1 ] && grep -q "has no launch 9999 (it has $nall)" "$TMP/err"
ok $? "kreplay --launch: out of range"
run "$TLREPLAY" kreplay dball --grid 0,2
[ "$RC" -eq 1 ] && grep -q "bad --grid '0,2'" "$TMP/err"
ok $? "kreplay: a bad --grid"

# the recorder inside the program under valgrind's memcheck: the arena, the tables and the
# recording must not touch memory they do not own (the H200 showed heap corruption, issue 27.1)
if command -v valgrind >/dev/null 2>&1; then
	run "$TLREPLAY" record -k . -o dbvg -- valgrind -q --error-exitcode=9 "$K/kapp" "$IMG" 1
	[ "$RC" -eq 0 ] && grep -q '^kapp: checksum=' "$TMP/out" && ! grep -q '^==[0-9]*==' "$TMP/err" &&
		grep -q '1 launch recorded into dbvg' "$TMP/err"
	ok $? "record: the recorded program runs clean under valgrind (frees, async memory, VMM)"
	[ "$RC" -eq 0 ] || sed -n 1,30p "$TMP/err" | sed 's/^/# /' >&2
else
	skip "no valgrind"
fi

# ---------------------------------------------------------------- the arena
# The recorder serves device memory from its arena at 0x200000000000 (the stand-in driver puts
# its own at 0x300000000000), so that a fresh process can have every recorded address (issue 27.2)
inarena='all(0x200000000000 <= int(m["base"], 16) < 0x200000000000 + (1 << 40) for l in j["launches"] for m in l["memory"])'
[ "$(field dball/index.json 'j["launches"][0]["arena"]')" = "{'base': '0x200000000000', 'size': 1099511627776}" ] &&
	[ "$(field dball/index.json "$inarena")" = True ] &&
	[ "$(field dball/index.json 'sorted(set(m["kind"] for l in j["launches"] for m in l["memory"]))')" = "['alloc', 'async', 'mapped']" ]
ok $? "record: cuMemAlloc, cuMemAllocAsync and cuMemAddressReserve's ranges come from the arena at 0x200000000000"
run "$TLREPLAY" kreplay dball --launch 0 --no-store
[ "$RC" -eq 0 ] && grep -q "memory [0-9]* allocations, [0-9.]* MiB, in the recorder's arena at 0x200000000000" "$TMP/out"
ok $? "kreplay: says the memory is in the recorder's arena"

# a helper that takes 1 MiB at $OCCUPY_AT (hex) in every process it is preloaded into
cat >occupy.c <<'EOC'
#include <stdlib.h>
#include <sys/mman.h>
__attribute__((constructor)) static void occupy(void)
{
	const char *at = getenv("OCCUPY_AT");

	if (at)
		mmap((void *)strtoull(at, NULL, 16), 1 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		     -1, 0);
}
EOC
if ${CC:-cc} -shared -fPIC -o occupy.so occupy.c 2>/dev/null; then
	# (a sanitized tlreplay wants its runtime first: let the helper go before it)
	occupied() {
		at=$1
		shift
		run env LD_PRELOAD="$TMP/occupy.so" OCCUPY_AT="$at" ASAN_OPTIONS=verify_asan_link_order=0 "$@"
	}
	# where the driver put memory when recording is taken here: no matter, the arena is free
	occupied 300000000000 "$TLREPLAY" kreplay dball --launch 0 --verify --no-store
	[ "$RC" -eq 0 ] && grep -q 'verify match' "$TMP/out"
	ok $? "kreplay: the driver's own addresses taken in the replaying process: the arena's memory replays"
	occupied 200000000000 "$TLREPLAY" kreplay dball --launch 0
	[ "$RC" -eq 1 ] && grep -q "cannot have the recorder's arena 0x200000000000-0x[0-9a-f]* (the part the recording used) in this process: the driver offered 0x" "$TMP/err"
	ok $? "kreplay: the arena taken in the replaying process: said, with its range"
	# the arena is reserved before the saved files are mapped: with a blob gone too, the
	# arena is what fails first
	occupied 200000000000 "$TLREPLAY" kreplay gone --launch 0
	[ "$RC" -eq 1 ] && grep -q "cannot have the recorder's arena" "$TMP/err" && ! grep -q 'missing from the database' "$TMP/err"
	ok $? "kreplay: the arena is reserved before the saved files are mapped"

	# --arena off: memory where the driver put it, each range reserved at its address
	run "$TLREPLAY" record -k '^saxpy$' --arena off -o dboff -- "$K/kapp" "$IMG"
	[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = "$base" ] && [ "$(field dboff/index.json '"arena" in j["launches"][0]')" = False ] &&
		[ "$(field dboff/index.json 'j["launches"][0]["memory"][0]["base"]')" = 0x300000000000 ]
	ok $? "record --arena off: memory where the driver put it, no arena in the index"
	run "$TLREPLAY" kreplay dboff --launch 0 --verify --no-store
	[ "$RC" -eq 0 ] && grep -q 'verify match' "$TMP/out" && grep -q 'where the driver put them (recorded without the arena)' "$TMP/out"
	ok $? "kreplay: a recording without the arena replays at its addresses, and says where they came from"
	occupied 300000000000 "$TLREPLAY" kreplay dboff --launch 0
	[ "$RC" -eq 1 ] && grep -q 'cannot have 0x300000000000-0x[0-9a-f]* at its address for allocation 0 (0x300000000000, [0-9]* bytes, alloc): the range is taken in this process' "$TMP/err"
	ok $? "kreplay: a recorded range that is taken: the allocation and the range are named"

	# the arena cannot be had in the recorded process: said, and the program runs as without it
	occupied 200000000000 "$TLREPLAY" record -k '^saxpy$' -o dbnoarena -- "$K/kapp" "$IMG"
	[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = "$base" ] &&
		grep -q 'cannot have the arena 0x200000000000-0x210000000000 (the driver offered 0x' "$TMP/err" &&
		[ "$(field dbnoarena/index.json '"arena" in j["launches"][0]')" = False ]
	ok $? "record: an arena that is taken is said once; memory comes from the driver, results unchanged"
else
	for i in 1 2 3 4 5 6 7; do skip "no C compiler for the address-taking helper"; done
fi
# an arena too small for everything: what it cannot hold comes from the driver, said once
run "$TLREPLAY" record -k '^saxpy$' --arena 0x240000000000:256K -o dbsmall -- "$K/kapp" "$IMG"
[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = "$base" ] &&
	[ "$(grep -c 'the arena 0x240000000000-0x240000040000 has no room for' "$TMP/err")" = 1 ]
ok $? "record --arena BASE:SIZE: a full arena is said once, the rest comes from the driver"
run "$TLREPLAY" kreplay dbsmall --launch 0 --verify --no-store
[ "$RC" -eq 0 ] && grep -q 'verify match' "$TMP/out" &&
	grep -q "[0-9]* in the recorder's arena at 0x240000000000, [0-9]* where the driver put them" "$TMP/out"
ok $? "kreplay: memory partly in the arena, partly the driver's, replays; the split is said"
run "$TLREPLAY" record -k '^saxpy$' --arena 0x1000:4096:1 -o dbbad -- "$K/kapp" "$IMG"
[ "$RC" -eq 1 ] && grep -q "bad --arena '0x1000:4096:1'" "$TMP/err" && [ ! -s "$TMP/out" ]
ok $? "record: a malformed --arena is refused before the program runs"
run env TLREPLAY_RECORD_ARENA=0x240000001000 "$TLREPLAY" record -k '^saxpy$' -o dbodd -- "$K/kapp" "$IMG"
[ "$RC" -eq 0 ] && [ "$(cat "$TMP/out")" = "$base" ] && grep -q 'is not in whole granules of the driver (65536): no arena' "$TMP/err"
ok $? "record: an arena not aligned to the driver's granularity is refused by the recorder, the program runs"

# a selected launch inside a stream capture (torch.cuda.graphs): recording would synchronize and
# end the capture, so it runs unrecorded, says so, and the program's capture goes on (issue 27.3)
run env KAPP_CAPTURE=1 "$TLREPLAY" record -k '^small_block$' --count 0 -o dbcap -- "$K/kapp" "$IMG"
[ "$RC" -eq 0 ] && grep -q 'not recorded: small_block was launched on a stream being captured into a CUDA graph' "$TMP/err" &&
	grep -q '^kapp: checksum=' "$TMP/out" && grep -q 'recorded small_block' "$TMP/err"
ok $? "record: a launch inside a stream capture is left alone, the capture ends well, the others are recorded"
# a launch in clusters of 16 blocks, which its function allowed (the non-portable cluster size
# attribute, as Triton sets it): recorded with the attribute, replayed with it (issue 27.3)
run env KAPP_BIGCLUSTER=1 "$TLREPLAY" record -k '^saxpy$' --count 0 -o dbbig -- "$K/kapp" "$IMG"
nb=$("$PYTHON" -c 'import json,sys; L=json.load(open(sys.argv[1]))["launches"]
print([i for i, l in enumerate(L) if l.get("non_portable_cluster") == 1 and l["grid"] == [16, 1, 1]][0])' dbbig/index.json 2>/dev/null)
[ -n "$nb" ] && run "$TLREPLAY" kreplay dbbig --launch "$nb" --verify --no-store &&
	[ "$RC" -eq 0 ] && grep -q 'verify match' "$TMP/out"
ok $? "record/kreplay: a cluster of 16 blocks keeps its function's non-portable cluster attribute"
# the packed replayer too: it reserves the arena first and sets the attribute
rm -rf big && mkdir big
if [ -n "$nb" ] && command -v make >/dev/null && "$TLREPLAY" pack -o big.zip --kdb dbbig --launch "$nb" 2>/dev/null &&
	(cd big && unzip -q ../big.zip && cd big && make -s) >"$TMP/make.log" 2>&1; then
	(cd big/big && ./replay launch-0.txt 2) >"$TMP/rep.out" 2>&1
	[ $? -eq 0 ] && grep -q 'outputs match the recording' "$TMP/rep.out" && grep -q '^nonportable 1$' big/big/launch-0.txt &&
		grep -q '^arena 200000000000 1099511627776$' big/big/launch-0.txt
	ok $? "pack --kdb: the standalone replayer reserves the arena and sets the non-portable cluster attribute"
else
	ok 1 "pack --kdb of the cluster launch builds: $(cat "$TMP/make.log")"
fi
# arguments a recording cannot carry (issue 27.3): a pointer to pinned host memory, a texture
# object's handle: said when recorded, kept as the launch's notes, shown by kreplay
run env KAPP_HANDLES=1 "$TLREPLAY" record -k 'small_block|handle_low' --count 0 -o dbh -- "$K/kapp" "$IMG" 1
[ "$RC" -eq 0 ] && grep -q '^kapp: checksum=' "$TMP/out" &&
	grep -q 'small_block: parameter 0 points to pinned or mapped host memory (0x[0-9a-f]*): not saved' "$TMP/err" &&
	grep -q 'handle_low: parameter 0 is texture object 1: the handle names an object of the recorded process' "$TMP/err" &&
	[ "$(field dbh/index.json '[len(l.get("notes", [])) for l in j["launches"]]')" = "[0, 1, 1]" ]
ok $? "record: host-memory pointers and texture handles among the arguments are said and kept as notes"
run "$TLREPLAY" kreplay dbh --launch 2 --no-store
[ "$RC" -eq 0 ] && grep -q '^  note   handle_low: parameter 0 is texture object 1' "$TMP/out"
ok $? "kreplay: shows the recorder's notes"
[ "$(field dball/index.json 'sum(1 for l in j["launches"] if "notes" in l)')" = 0 ]
ok $? "record: no note on launches whose arguments are all device memory or plain values"

# cooperative launches (issue 27.3): cuLaunchCooperativeKernel is recorded with the cooperative
# attribute and replayed with it; coop_mark counts 1 a block when cooperative, 1000 when not
run env KAPP_COOP=1 "$TLREPLAY" record -k '^coop_mark$' --count 0 -o dbcoop -- "$K/kapp" "$IMG"
[ "$RC" -eq 0 ] && grep -q '^kapp: checksum=' "$TMP/out" &&
	[ "$(field dbcoop/index.json '[(l["api"], [a["id"] for a in l["attrs"]], l["attrs"][0]["value"][:8]) for l in j["launches"]]')" = "[('cuLaunchCooperativeKernel', [2], '01000000'), ('cuLaunchKernelEx', [2], '01000000')]" ]
ok $? "record: cuLaunchCooperativeKernel and cuLaunchKernelEx's cooperative launch keep the cooperative attribute"
run "$TLREPLAY" kreplay dbcoop --verify --no-store
[ "$RC" -eq 0 ] && [ "$(grep -c '^  verify match' "$TMP/out")" = 2 ]
ok $? "kreplay: both cooperative launches replay cooperatively, bit-exactly"
# a recording made before the attribute was written: the API name is enough
cp -r dbcoop coopold
"$PYTHON" -c "import json,sys; p=sys.argv[1]; j=json.load(open(p)); j['launches'][0]['attrs']=[]; json.dump(j, open(p,'w'))" coopold/index.json
run "$TLREPLAY" kreplay coopold --launch 0 --verify --no-store
[ "$RC" -eq 0 ] && grep -q '^  verify match' "$TMP/out"
ok $? "kreplay: a cuLaunchCooperativeKernel recording without the attribute is replayed cooperatively"
# ... and the same launch replayed as a plain one differs: the check above can fail
"$PYTHON" -c "import json,sys; p=sys.argv[1]; j=json.load(open(p)); j['launches'][0]['api']='cuLaunchKernel'; json.dump(j, open(p,'w'))" coopold/index.json
run "$TLREPLAY" kreplay coopold --launch 0 --verify --no-store
[ "$RC" -eq 1 ] && grep -q 'verify DIFFERS' "$TMP/out"
ok $? "kreplay: the cooperative kernel replayed as a plain launch differs (what the attribute prevents)"
rm -rf coopk && mkdir coopk
"$PYTHON" -c "import json,sys; p=sys.argv[1]; j=json.load(open(p)); j['launches'][0]['attrs']=[]; json.dump(j, open(p,'w'))" dbcoop/index.json
if command -v make >/dev/null && "$TLREPLAY" pack -o coopk.zip --kdb dbcoop 2>/dev/null &&
	(cd coopk && unzip -q ../coopk.zip && cd coopk && make -s) >"$TMP/make.log" 2>&1; then
	(cd coopk/coopk && ./replay launch-0.txt 2 && ./replay launch-1.txt 2) >"$TMP/rep.out" 2>&1
	[ $? -eq 0 ] && [ "$(grep -c 'outputs match the recording' "$TMP/rep.out")" = 2 ] &&
		grep -q "^attr 2 01000000" coopk/coopk/launch-0.txt
	ok $? "pack --kdb: the standalone replayer launches both cooperatively (an old recording's too)"
else
	ok 1 "pack --kdb of the cooperative launches builds: $(cat "$TMP/make.log")"
fi
done_testing

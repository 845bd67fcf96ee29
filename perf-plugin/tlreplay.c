/* SPDX-License-Identifier: MIT */
/* tlreplay: the command, a table of perf-style subcommands. */
#include <stdlib.h>
#include <string.h>

#include <tlreplay/replay.h>

#include "builtin.h"

#define COMMON_OPTS                                                                          \
	"    -i, --input TRACE          trace to read (.json[.gz], or JAX .xplane.pb[.gz]); default\n" \
	"                               $TLREPLAY_TRACE, then the trace saved by `tlreplay open`\n"    \
	"    -x, --field-separator SEP  separated values (CSV with -x,), with a header line\n"       \
	"    -j, --json                 one JSON object per line\n"                                  \
	"    -o, --output FILE          write to FILE (atomically) instead of stdout\n"              \
	"    -h, --help                 this help\n"                                                 \
	"        --capture DIR          merge the CUDA/HIP-graph capture traces in DIR first, so that\n" \
	"                               graph kernels belong to the ops that captured them\n"

#define NAV_OPTS                                                                             \
	"    -i, --input TRACE          trace to read (.json[.gz], or JAX .xplane.pb[.gz]); default\n" \
	"                               $TLREPLAY_TRACE, then the trace saved by `tlreplay open`\n"    \
	"    -j, --json                 one JSON object per line\n"                                  \
	"    -o, --output FILE          write to FILE (atomically) instead of stdout\n"              \
	"    -h, --help                 this help\n"                                                 \
	"        --capture DIR          merge the CUDA/HIP-graph capture traces in DIR first\n"

static const char usage_open[] =
	"usage: tlreplay open TRACE\n"
	"       tlreplay open            (print the remembered trace)\n"
	"       tlreplay open --forget   (forget it)\n"
	"       tlreplay open --help\n"
	"\n"
	"Remember TRACE as the current trace, so that later commands may omit -i.\n"
	"The path is kept in $XDG_STATE_HOME/tlreplay/current-trace\n"
	"(~/.local/state/tlreplay/current-trace). The trace is loaded once to check it.\n";

static const char usage_info[] =
	"usage: tlreplay info [-i TRACE] [-j] [-o FILE]\n"
	"\n"
	"What the trace is: file and JSON size, events by kind, time span, GPU events and how\n"
	"many are linked to a CPU launch, the devices (deviceProperties), the distributed\n"
	"setup (distributedInfo) and the runtime versions it records. -j prints all of it,\n"
	"with every top-level metadata key, as one JSON object.\n"
	"\n" NAV_OPTS;

static const char usage_breakdown[] =
	"usage: tlreplay breakdown [-i TRACE] [-x SEP | -j] [-o FILE]\n"
	"                          [--per-device | --per-stream] [--include-unlinked] [--recompute]\n"
	"   or: tlreplay breakdown -i DIR | -i RANK0 -i RANK1... [--jobs N] [--keep-going]\n"
	"\n"
	"GPU time split into computation, exposed communication, exposed memcpy and idle,\n"
	"with TraceLens's eight rows and definitions (its gpu_timeline sheet): unions of\n"
	"[ts, ts+dur) intervals of kernel, gpu_memcpy and gpu_memset events; NCCL/RCCL\n"
	"kernels are communication; total is the span from the first GPU start to the last\n"
	"GPU end. By default only GPU events linked to a CPU launch count, as in TraceLens.\n"
	"\n" COMMON_OPTS
	"        --per-device           one breakdown per device (TraceLens's JAX gpu_timeline;\n"
	"                               for PyTorch traces TraceLens pools all devices)\n"
	"        --per-stream           one breakdown per (device, stream)\n"
	"        --include-unlinked     also count GPU events no CPU launch links to\n"
	"        --recompute            two breakdowns: activation recompute (torch.utils.checkpoint)\n"
	"                               or not, like TraceLens's detect_recompute option\n"
	"\n"
	"Several ranks (-i repeated, or -i DIR of traces or rank summaries): one block per\n"
	"rank, then each row's min/median/max over the ranks (docs/multi-rank.md).\n"
	"        --jobs N               read N ranks at once (default: the cores, within memory)\n"
	"        --keep-going           leave out ranks that cannot be read, with a warning\n";

static const char usage_collectives[] =
	"usage: tlreplay collectives -i DIR | -i TRACE... [-x SEP | -j] [-o FILE] [-n N]\n"
	"                            [--summary | --stragglers | --per-rank] [--jobs N] [--keep-going]\n"
	"\n"
	"NCCL/RCCL collectives matched across ranks by process group and order (the recorded\n"
	"Seq, else the rank-local index): per collective its type, dtype, size, the start skew\n"
	"between ranks, latency (the shortest rank's kernel), algorithm and bus bandwidth, NCCL's\n"
	"algorithm/protocol (from the kernel name) and the rank that arrived last. Ranks come\n"
	"from distributedInfo.rank, else from rankN or workerN in the file name. Inputs may be\n"
	"traces or rank summaries (`summarize`).\n"
	"\n"
	"    -i, --input PATH           a rank's trace or summary, or a directory of them; repeatable\n"
	"    -x, --field-separator SEP  separated values (CSV with -x,), with a header line\n"
	"    -j, --json                 one JSON object per line, with every rank's part\n"
	"    -o, --output FILE          write to FILE (atomically) instead of stdout\n"
	"    -n, --limit N              the first N rows only\n"
	"        --summary              one row per (type, dtype, size, group size): count, latency\n"
	"                               and bandwidth statistics, by total latency\n"
	"        --stragglers           one row per rank: how often it arrived last, time it waited\n"
	"        --per-rank             one row per rank's part of each collective (for plotting)\n"
	"        --chart FILE           also draw them (.svg, or .png through rsvg-convert): a\n"
	"                               timeline per rank, the waits, bandwidth by message size\n"
	"        --jobs N               read N ranks at once (default: the cores, within memory)\n"
	"        --keep-going           leave out ranks that cannot be read, with a warning\n"
	"    -h, --help                 this help\n";

static const char usage_summarize[] =
	"usage: tlreplay summarize [-i TRACE] [-o FILE] [--rank N]\n"
	"   or: tlreplay summarize -i DIR | -i TRACE... -o DIR [--jobs N] [--keep-going]\n"
	"\n"
	"Reduce a rank's trace to its rank summary (JSON lines, about 100 bytes per collective\n"
	"kernel): its breakdowns and collective timeline. `breakdown` and `collectives` read\n"
	"summaries as they read traces, so a job array can summarise ranks where they were\n"
	"written and one machine merges them (docs/multi-rank.md, scripts/slurm-ranks.sh).\n"
	"\n"
	"    -i, --input PATH           the trace (default as for the other commands), or several\n"
	"    -o, --output FILE|DIR      the summary file (atomically; default stdout); for several\n"
	"                               ranks a directory that gets rank-N.tlrank.jsonl each\n"
	"    -r, --rank N               the rank, when neither distributedInfo nor the name says\n"
	"        --jobs N               read N ranks at once (default: the cores, within memory)\n"
	"        --keep-going           leave out ranks that cannot be read, with a warning\n"
	"    -h, --help                 this help\n";

static const char usage_ops[] =
	"usage: tlreplay ops [-i TRACE] [-x SEP | -j] [-o FILE] [-n N]\n"
	"                    [--recompute | --by-module | --unique-args] [--include-nccl]\n"
	"\n"
	"Kernel launchers grouped by op name (TraceLens's ops_summary): the busy time of the\n"
	"GPU events each op launched directly and of all GPU events below it, the count and\n"
	"the op categories. A launcher is the first cpu_op above the runtime call of a GPU\n"
	"event (else the runtime call itself).\n"
	"\n" COMMON_OPTS
	"    -n, --limit N              show the first N rows (0 = all, the default)\n"
	"        --recompute            group by (name, is_recompute)\n"
	"        --by-module            group by (name, parent nn.Module), with the call stack, like\n"
	"                               TraceLens's inference report (builds the tree with python functions)\n"
	"        --unique-args          one row per distinct (name, category, pid, tid, Input Dims, Input\n"
	"                               type, Input Strides, Concrete Inputs), TraceLens's ops_unique_args;\n"
	"                               count and mean/median/std/min/max/sum of both times, ex_UID\n"
	"        --include-nccl         count NCCL kernels too (TraceLens leaves them out)\n";

static const char usage_kernels[] =
	"usage: tlreplay kernels [-i TRACE] [-x SEP | -j] [-o FILE] [-n N] [--unique]\n"
	"\n"
	"Kernel summary (TraceLens's kernel_summary): kernels grouped by parent op category,\n"
	"parent cpu_op, kernel name and stream, with count, total, mean, min, max duration and\n"
	"shares of all kernel time and of the GPU timeline. With --unique: every distinct\n"
	"kernel launch configuration (name, grid, block, registers, shared memory).\n"
	"\n" COMMON_OPTS
	"    -n, --limit N              show the first N rows (0 = all, the default)\n"
	"        --unique               one row per distinct kernel configuration\n";

static const char usage_list[] =
	"usage: tlreplay list [-i TRACE] [-x SEP | -j] [-o FILE] [REGEX] [--name REGEX]\n"
	"                     [-c CAT] [--gpu] [--from US] [--to US] [-n N]\n"
	"\n"
	"List events with their UIDs (the index in traceEvents, as in TraceLens).\n"
	"\n" COMMON_OPTS
	"        --name REGEX           event names matching the extended regular expression\n"
	"    -c, --cat CAT              events of this category (raw \"cat\", or a kind such as\n"
	"                               cpu_op, runtime, kernel, gpu_memcpy, python_function)\n"
	"        --gpu                  GPU events only (kernel, gpu_memcpy, gpu_memset)\n"
	"        --from US, --to US     events overlapping this window, in microseconds from the\n"
	"                               first event of the trace\n"
	"    -n, --limit N              at most N events (0 = all; default 50 for human output on\n"
	"                               stdout, all otherwise)\n";

static const char usage_show[] =
	"usage: tlreplay show [-i TRACE] [-j] [-o FILE] [--python] UID...\n"
	"\n"
	"Show an event: its fields and args, the call stack above it, its children, the GPU\n"
	"events below it (or, for a GPU event, the runtime call and op that launched it), and\n"
	"its forward/backward partner.\n"
	"\n" NAV_OPTS
	"        --python               build the call tree with python_function events\n";

static const char usage_tree[] =
	"usage: tlreplay tree [-i TRACE] [-j] [-o FILE] [--all] [-d N] [--python] [UID]\n"
	"\n"
	"Print the call tree below UID (CPU op -> runtime call -> GPU events), or every root\n"
	"of the tree that leads to GPU work (to depth 2 unless -d is given).\n"
	"\n" NAV_OPTS
	"    -a, --all                  keep branches that launch no GPU work\n"
	"    -d, --depth N              stop N levels below the start\n"
	"        --python               build the call tree with python_function events\n";

static const char usage_check[] =
	"usage: tlreplay check [-i TRACE] [-x SEP | -j] [-o FILE]\n"
	"\n"
	"Trace health report: GPU events no CPU launch links to, flows without a start,\n"
	"kernels on one stream that overlap or run past the next one, ops without shapes,\n"
	"negative or missing durations, clock disagreements between CPU and GPU.\n"
	"Exit status: 0 if nothing is an error, 1 if some finding is an error.\n"
	"\n" COMMON_OPTS;

#define REPLAY_OPTS                                                                          \
	"    -r, --iters N              timed calls (default 100)\n"                              \
	"        --warmup N             untimed calls first (default 10)\n"                       \
	"        --min-time S           keep timing until S seconds have passed\n"                \
	"        --device DEV           cpu (default), cuda or cuda:N\n"                           \
	"        --flush-l2             CUDA: evict the L2 cache before each timed call\n"         \
	"        --cuda-graph           CUDA: capture the op in a graph and time its replays (tiny ops)\n" \
	"        --seed N               seed for the tensor contents (default 0)\n"               \
	"        --init-plugin FILE.py  custom initializers (repeatable; first exact op match wins)\n" \
	"        --init-kwargs JSON     options for the initializers, e.g. '{\"moe_distribution\": \"zipf\"}'\n" \
	"        --python PATH          interpreter with torch (default $TLREPLAY_PYTHON, else\n"  \
	"                               " TL_DEFAULT_PYTHON ")\n"                                  \
	"        --schemas FILE         match op schemas against this snapshot instead of the\n"   \
	"                               worker's torch\n"                                          \
	"        --timeout S            give up on one op after S seconds (default 600)\n"        \
	"        --namespace NS=MOD[,MOD]  import MOD (a module or a FILE.py) for the ops of NS\n"  \
	"                               (repeatable; aiter, vllm, _C, _rocm_C, _C_cache_ops are known)\n" \
	"        --alias OP=OTHER[,OTHER]  replay OP as OTHER when this torch lacks OP (repeatable)\n" \
	"        --control fd:CTL[,ACK] | fifo:CTL[,ACK]  under `perf stat -D -1 --control ...`: send\n" \
	"                               enable/disable around the timed calls only (also taken from\n" \
	"                               PERF_CTL_FD/PERF_ACK_FD or PERF_STAT_CTL_FIFO/PERF_STAT_ACK_FIFO)\n" \
	"        --store FILE           the results store (default $TLREPLAY_STORE, else\n"      \
	"                               ~/.local/state/tlreplay/results.jsonl)\n"               \
	"        --no-store             do not record the results\n"                             \
	"    -v, --verbose              arguments, worker messages, tracebacks\n"

#define SELECT_OPTS                                                                          \
	"        --launchers            kernel launchers only (ops that launched GPU work)\n"      \
	"        --unique               one entry per distinct (name, Input Dims, Input type, Input\n" \
	"                               Strides, Concrete Inputs), with count and uids (with\n"    \
	"                               --launchers: TraceLens's ops_unique_args groups)\n"        \
	"        --filter REGEX         ops whose name matches the extended regular expression\n"   \
	"        --top N                the N ops (or groups) with the most GPU time\n"            \
	"        --strict               leave out ops no schema matches, instead of typing their\n" \
	"                               arguments from the profile (schemaless entries)\n"         \
	"        --no-torch             match against the bundled schema snapshot; start no Python\n" \
	"        --schemas FILE         match against this schema snapshot\n"                      \
	"        --python PATH          interpreter whose torch gives the live schemas\n"          \
	"        --namespace NS=MOD[,MOD]  import MOD (a module or a FILE.py) so that the live\n"   \
	"                               schemas have the ops of NS (repeatable)\n"               \
	"    -v, --verbose              the worker's messages\n"

static const char usage_ir[] =
	"usage: tlreplay ir [-i TRACE] [-o FILE] UID...\n"
	"       tlreplay ir [-i TRACE] [-o FILE] [--launchers] [--unique] [--filter REGEX] [--top N]\n"
	"\n"
	"Write ops as replay IR (docs/ir.md): a JSON list in TraceLens's format, {op_name,\n"
	"replay_ir: {list_pos_args, list_kwargs}}, plus uid, schema, overload, trace_dur_us,\n"
	"gpu_time_us, kernels and source. Schemas come from the torch of --python when it\n"
	"can be started, else from the bundled snapshot. Without UIDs or options: every\n"
	"cpu_op that recorded shapes. What was left out, and why, is said on stderr.\n"
	"\n"
	"    -i, --input TRACE          trace to read; default $TLREPLAY_TRACE, then `tlreplay open`'s\n"
	"    -o, --output FILE          write to FILE (atomically) instead of stdout\n"
	"    -h, --help                 this help\n"
	"        --capture DIR          merge the CUDA/HIP-graph capture traces in DIR first\n"
	SELECT_OPTS;

static const char usage_uid[] =
	"usage: tlreplay uid [-i TRACE] [-j] [-o FILE] [options] UID\n"
	"\n"
	"Replay one op of the trace alone: rebuild its arguments with the recorded shapes,\n"
	"strides and dtypes, run it --warmup times, then time -r calls (CPU clock on the CPU,\n"
	"CUDA events on a GPU) and print median, mean, std, min and max. On a GPU, the kernels\n"
	"the replay launched are compared with the trace's (MATCH, SUBSET or MISMATCH).\n"
	"Exit status 1 when the op cannot be replayed.\n"
	"\n" NAV_OPTS REPLAY_OPTS;

static const char usage_replay[] =
	"usage: tlreplay replay [-j] [-o FILE] [options] IR.json\n"
	"\n"
	"Replay every entry of an IR file (tlreplay's or TraceLens's) in a worker that is\n"
	"restarted when an op crashes it, and print a summary: entries, attempted, ok,\n"
	"failed, unavailable. With -j, one JSON object per entry with status ok | failed |\n"
	"unavailable and the reason. Exit status 1 when some entry failed.\n"
	"\n"
	"    -j, --json                 one JSON object per entry\n"
	"    -o, --output FILE          write to FILE (atomically) instead of stdout\n"
	"    -h, --help                 this help\n"
	"        --op-filter SUBSTR     only entries whose op name contains SUBSTR\n"
	"        --op-limit N           at most N entries (after --op-filter)\n"
	"        --stop-on-error        stop at the first failed entry\n"
	REPLAY_OPTS;

static const char usage_pack[] =
	"usage: tlreplay pack -o FILE.zip [-i TRACE] [selection] UID...\n"
	"\n"
	"Pack ops into one zip for someone with only Python and torch: ir.json, replay.py\n"
	"(python3 replay.py replay ir.json) and a README. The ops are chosen as for\n"
	"`tlreplay ir`; the initializers given with --init-plugin travel in plugins/.\n"
	"\n"
	"    -i, --input TRACE          trace to read; default $TLREPLAY_TRACE, then `tlreplay open`'s\n"
	"    -o, --output FILE.zip      the archive to write (atomically)\n"
	"    -h, --help                 this help\n"
	"        --capture DIR          merge the CUDA/HIP-graph capture traces in DIR first\n"
	"        --init-plugin FILE.py  an initializer to ship with the ops (repeatable)\n"
	SELECT_OPTS;

static const char usage_stat[] =
	"usage: tlreplay stat [-e EVENTS] [-r N] [-x SEP | -j] [-o FILE] [options] uid UID\n"
	"\n"
	"Count hardware and software events (perf_event_open) over the timed replay of one op\n"
	"only: the counters open on the replay worker's threads after its arguments are built\n"
	"and its warm-up calls ran, and close when the timed calls end. Output as perf stat's:\n"
	"the human table (on stderr, as perf), -x SEP with perf's field order, -j with perf's\n"
	"keys; values per call as well. With -r N the region runs N times and each counter\n"
	"gets perf's noise figure. Results go to the results store (see `tlreplay fold`).\n"
	"\n"
	"    -e, --event EVENTS         events as perf takes them: cycles,instructions, {a,b} groups,\n"
	"                               :u/:k modifiers, pmu/event=0x3c/, rNNNN, libpfm4 names\n"
	"                               (default: perf stat's default set); GPU metrics as ncu names\n"
	"                               them, nvgpu/dram__bytes_read.sum/ (CUPTI, per call), and the\n"
	"                               GPU's energy, nvml/energy-gpu0/ (NVML, Joules)\n"
	"    -r, --repeat N             run the counted region N times (1..100)\n"
	"        --iters N              timed calls in one region (default 100)\n"
	"        --no-scale             do not scale multiplexed counts by enabled/running\n"
	"    -i, --input TRACE          trace to read; default $TLREPLAY_TRACE, then `tlreplay open`'s\n"
	"    -x, --field-separator SEP  separated values in perf stat -x's field order\n"
	"    -j, --json                 one JSON object per event, with perf stat -j's keys\n"
	"    -o, --output FILE          write to FILE (atomically) instead of stderr\n"
	"    -h, --help                 this help\n"
	"        --capture DIR          merge the CUDA/HIP-graph capture traces in DIR first\n"
	"        --warmup N             untimed calls first (default 10)\n"
	"        --min-time S           keep timing until S seconds have passed\n"
	"        --device DEV           cpu (default), cuda or cuda:N\n"
	"        --flush-l2             CUDA: evict the L2 cache before each timed call\n"
	"        --cuda-graph           CUDA: capture the op in a graph and time its replays\n"
	"        --seed N               seed for the tensor contents (default 0)\n"
	"        --init-plugin FILE.py  custom initializers (repeatable)\n"
	"        --init-kwargs JSON     options for the initializers\n"
	"        --python PATH          interpreter with torch (default $TLREPLAY_PYTHON, else\n"
	"                               " TL_DEFAULT_PYTHON ")\n"
	"        --schemas FILE         match op schemas against this snapshot\n"
	"        --timeout S            give up on one run after S seconds (default 600)\n"
	"        --namespace NS=MOD[,MOD]  import MOD (a module or a FILE.py) for the ops of NS\n"
	"        --alias OP=OTHER[,OTHER]  replay OP as OTHER when this torch lacks OP\n"
	"        --control fd:CTL[,ACK] | fifo:CTL[,ACK]  also drive perf stat's control channel\n"
	"        --store FILE           the results store (default $TLREPLAY_STORE, else\n"
	"                               ~/.local/state/tlreplay/results.jsonl)\n"
	"        --no-store             do not record the results\n"
	"    -v, --verbose              worker messages, tracebacks\n";

static const char usage_fold[] =
	"usage: tlreplay fold [-i TRACE] [--store FILE] [--capture DIR] -o OUT.json[.gz]\n"
	"\n"
	"Write a copy of the trace with the replay results of the store folded in, for\n"
	"Perfetto or chrome://tracing: each replayed op gets args.tlreplay (cpu_median_us,\n"
	"cuda_median_us, trace_gpu_us, replay_over_trace, and every replay with its times,\n"
	"counters and kernel verdict), the GPU kernels it launched get its uid and medians,\n"
	"and \"tlreplay\" counter tracks on its process show the replay times and per-call\n"
	"counters over each op. Results belong to the trace when their trace signature (size,\n"
	"first and last MiB) matches, else its path; per op, device, command and sweep event\n"
	"group the latest ok result wins. The input is never modified; OUT is written atomically, gzip-compressed\n"
	"when it ends in .gz. Exit status 1, with nothing written, when the store is missing\n"
	"or corrupt or holds no result for this trace.\n"
	"\n"
	"    -i, --input TRACE          trace to read (.json or .json.gz); default $TLREPLAY_TRACE,\n"
	"                               then the trace saved by `tlreplay open`\n"
	"    -o, --output OUT           the folded trace to write (required; not the input)\n"
	"        --store FILE           results store to read (repeatable: the stores of a sweep\n"
	"                               spread over machines); default $TLREPLAY_STORE, else\n"
	"                               $XDG_STATE_HOME/tlreplay/results.jsonl\n"
	"                               (~/.local/state/tlreplay/results.jsonl)\n"
	"    -h, --help                 this help\n"
	"        --capture DIR          merge the CUDA/HIP-graph capture traces in DIR first, so that\n"
	"                               graph kernels get the results of the ops that captured them\n";

static const char usage_sweep[] =
	"usage: tlreplay sweep [-i TRACE] [--top N] [-e EVENTS]... [-o FOLDED] [--chart FILE] [IR.json]\n"
	"\n"
	"Replay the top ops of a trace (its kernel launchers grouped by recorded arguments,\n"
	"most GPU time first) or every entry of an IR file, once per event group, in one\n"
	"worker. Each result goes to the results store as it comes, so a sweep that stops\n"
	"resumes where it was: what the store has for the same op, device, events and calls\n"
	"is not run again. Prints a summary, folds the results into a copy of the trace (-o)\n"
	"and draws them (--chart: per-op time, counters per call, roofline where FLOPs are\n"
	"known).\n"
	"\n"
	"    -i, --input TRACE          trace to read; default $TLREPLAY_TRACE, then `tlreplay open`'s\n"
	"        --top N                the N op groups with the most GPU time (default 10)\n"
	"        --filter REGEX         only ops whose name matches\n"
	"    -e, --event EVENTS         one event group per -e, in perf's syntax (repeatable; default:\n"
	"                               software events, then {cycles,instructions},\n"
	"                               {cache-references,cache-misses}, {branches,branch-misses})\n"
	"    -r, --repeat N             count each region N times (perf's noise figure)\n"
	"        --iters N              timed calls per region (default 50)\n"
	"        --shard K/N            only ops K, K+N, K+2N...: one of N machines (a SLURM array)\n"
	"        --retry-failed         run again what failed before (else only what is missing)\n"
	"        --no-scale             do not scale multiplexed counts\n"
	"    -o, --output FOLDED        fold the results into this copy of the trace (.json[.gz])\n"
	"        --chart FILE           draw the results: FILE.svg, or FILE.png (needs rsvg-convert)\n"
	"        --peak-gflops G, --peak-gbs B  the device's peak GFLOP/s and GB/s: the roofline's roof\n"
	"    -h, --help                 this help\n"
	"        --capture DIR          merge the CUDA/HIP-graph capture traces in DIR first\n"
	"        --device DEV           cpu (default), cuda or cuda:N\n"
	"        --warmup N             untimed calls before each region (default 10)\n"
	"        --python PATH          interpreter with torch (default $TLREPLAY_PYTHON, else\n"
	"                               " TL_DEFAULT_PYTHON ")\n"
	"        --store FILE           the results store (default $TLREPLAY_STORE, else\n"
	"                               ~/.local/state/tlreplay/results.jsonl)\n"
	"        --namespace NS=MOD[,MOD]  import MOD (a module or a FILE.py) for the ops of NS\n"
	"        --init-plugin FILE.py  custom initializers (repeatable)\n"
	"        --timeout S            give up on one region after S seconds (default 600)\n"
	"    -v, --verbose              worker messages, tracebacks\n";

static const char usage_help[] = "usage: tlreplay help [COMMAND]\n";

const struct cmd tl_cmds[] = {
	{ "open", cmd_open, "remember a trace for later commands", usage_open },
	{ "info", cmd_info, "what the trace holds: events, span, devices, versions", usage_info },
	{ "breakdown", cmd_breakdown, "GPU time: compute, exposed comm, exposed memcpy, idle",
	  usage_breakdown },
	{ "collectives", cmd_collectives, "NCCL/RCCL collectives matched across ranks: skew, bandwidth",
	  usage_collectives },
	{ "summarize", cmd_summarize, "reduce rank traces to summaries for a later merge",
	  usage_summarize },
	{ "ops", cmd_ops, "op summary by GPU time (TraceLens ops_summary)", usage_ops },
	{ "kernels", cmd_kernels, "kernel summary, or every distinct kernel (--unique)",
	  usage_kernels },
	{ "list", cmd_list, "list events with their UIDs", usage_list },
	{ "show", cmd_show, "show one event: args, call stack, children, GPU events", usage_show },
	{ "tree", cmd_tree, "the CPU op -> runtime -> GPU call tree", usage_tree },
	{ "check", cmd_check, "trace health report (exit 1 on errors)", usage_check },
	{ "ir", cmd_ir, "write ops as replay IR (JSON)", usage_ir },
	{ "uid", cmd_uid, "replay one op of the trace alone and time it", usage_uid },
	{ "replay", cmd_replay, "replay every op of an IR file", usage_replay },
	{ "pack", cmd_pack, "zip ops with a standalone replayer and a README", usage_pack },
	{ "stat", cmd_stat, "perf stat over the timed replay of one op", usage_stat },
	{ "fold", cmd_fold, "fold replay results into a copy of the trace", usage_fold },
	{ "sweep", cmd_sweep, "top ops x counter groups, resumable; fold and chart", usage_sweep },
	{ "help", cmd_help, "help on a command", usage_help },
	{ NULL, NULL, NULL, NULL },
};

static void main_usage(FILE *f)
{
	int i;

	fputs("usage: tlreplay [--version] [--help] COMMAND [ARGS]\n\n"
	      "Analyse PyTorch profiler traces; navigate them by UID.\n\n"
	      "Commands:\n",
	      f);
	for (i = 0; tl_cmds[i].name; i++)
		fprintf(f, "   %-12s %s\n", tl_cmds[i].name, tl_cmds[i].summary);
	fputs("\nSee `tlreplay help COMMAND` or man tlreplay.\n", f);
}

int cmd_help_for(const char *name)
{
	bool amb;
	const struct cmd *c = cli_find_cmd(name, &amb);

	if (!c)
		return cli_error("help: no command '%s'", name);
	cli_usage(c, stdout);
	return 0;
}

int cmd_usage_error(const char *name)
{
	bool amb;
	const struct cmd *c = cli_find_cmd(name, &amb);
	const char *nl;

	if (!c)
		return 1;
	nl = strchr(c->usage, '\n');
	fprintf(stderr, "%.*s\n", nl ? (int)(nl - c->usage) : (int)strlen(c->usage), c->usage);
	fprintf(stderr, "(see `tlreplay %s --help`)\n", name);
	return 1;
}

int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		main_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help_for("help");
	return cmd_help_for(argv[1]) ? 1 : 0;
}

/* For bash completion: the long options of a command, from the option lines
 * of its help text (each printed once). */
static void list_opts(const char *name)
{
	bool amb;
	const struct cmd *c = cli_find_cmd(name, &amb);
	const char *p, *seen[64];
	size_t nseen = 0, i;

	if (!c)
		return;
	for (p = c->usage; (p = strstr(p, "--")); p += 2) {
		size_t n = 2;

		while (p[n] == '-' || (p[n] >= 'a' && p[n] <= 'z'))
			n++;
		if (n <= 3 || !(p == c->usage || p[-1] == ' ' || p[-1] == '[' || p[-1] == '|'))
			continue;
		if (!(p[n] == ' ' || p[n] == ',' || p[n] == ']' || p[n] == '=' || p[n] == '\n' ||
		      p[n] == ')' || p[n] == 0))
			continue;
		for (i = 0; i < nseen; i++)
			if (!strncmp(seen[i], p, n) && (seen[i][n] < 'a' || seen[i][n] > 'z') &&
			    seen[i][n] != '-')
				break;
		if (i < nseen || nseen == TL_ARRAY_N(seen))
			continue;
		seen[nseen++] = p;
		printf("%.*s\n", (int)n, p);
	}
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	bool amb;
	int i;

	if (argc < 2) {
		main_usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("tlreplay %s\n", tl_version());
		return 0;
	}
	if (!strcmp(argv[1], "--list-cmds")) {
		for (i = 0; tl_cmds[i].name; i++)
			puts(tl_cmds[i].name);
		return 0;
	}
	if (!strcmp(argv[1], "--list-opts")) {
		if (argc > 2)
			list_opts(argv[2]);
		return 0;
	}
	c = cli_find_cmd(argv[1], &amb);
	if (!c) {
		if (amb)
			return cli_error("'%s' is ambiguous; see `tlreplay --help`", argv[1]);
		return cli_error("what is '%s'? see `tlreplay --help` for the commands", argv[1]);
	}
	argv[1] = (char *)c->name;
	return c->fn(argc - 1, argv + 1);
}

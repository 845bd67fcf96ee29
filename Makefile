# tlreplay: analyse, extract and replay PyTorch profiler traces.
#
#   make                 build libtlreplay (.so, .a, .pc) and the tlreplay command into $(O)/
#   make check           build and run every test (unit, CLI, conformance, fuzz smoke)
#   make demo            make a sample trace and analyse it
#   make bench           performance benchmark (big; not part of check)
#   make gpu-check       the folder to carry to a GPU machine: sh $(O)/gpu-check/run.sh there
#   make install         install under $(DESTDIR)$(PREFIX)    (uninstall: the reverse)
#
# Variables: V=1 (show commands), O=dir (build dir), SANITIZER=address|undefined|thread,
# PREFIX, DESTDIR, BINDIR, LIBDIR, INCLUDEDIR, MANDIR, DATADIR, CC, EXTRA_CFLAGS,
# EXTRA_LDFLAGS, PKG_CONFIG, PYTHON (interpreter for tests, default /usr/bin/python3).

VERSION := 0.1.0
SOVERSION := 0

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
bash_compdir ?= $(DATADIR)/bash-completion/completions

O ?= build
CC ?= cc
PKG_CONFIG ?= pkg-config
PROTOC_C ?= protoc-c
PYTHON ?= /usr/bin/python3
SHARED ?= $(abspath ../shared)

ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-8s %s\n' $(1) $(2);
endif

WARNINGS := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wpointer-arith \
	-Wformat=2 -Wno-format-nonliteral -Wundef
OPT ?= -O2 -g
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE $(OPT) $(WARNINGS) -Icore/include -Icore/src -I$(O)/gen

# float-cast-overflow (a double from a file cast to an integer it does not
# fit) is in clang's undefined but not in gcc's: asked for by name.
ifeq ($(SANITIZER),address)
SANFLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all
else ifeq ($(SANITIZER),undefined)
SANFLAGS := -fsanitize=undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all
else ifeq ($(SANITIZER),thread)
# the threads of the loader, the report and diff (make tsan-check)
SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
else ifneq ($(SANITIZER),)
$(error SANITIZER must be address, undefined or thread)
endif

CFLAGS_ALL = $(BASE_CFLAGS) $(SANFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)
LIB_CFLAGS = $(CFLAGS_ALL) -fPIC -fvisibility=hidden
# libxlsxwriter writes the report's workbook (core/src/report/workbook.c)
XLSX_LIBS := $(shell $(PKG_CONFIG) --libs xlsxwriter 2>/dev/null || echo -lxlsxwriter)
LDLIBS_CORE := -lcjson -ldeflate -lz -lprotobuf-c -lm -lpthread $(XLSX_LIBS)
LDFLAGS_ALL = $(SANFLAGS) $(LDFLAGS) $(EXTRA_LDFLAGS)

CORE_SRCS := $(wildcard core/src/*/*.c core/replay/*.c)
# C made from core/proto/*.proto by protoc-c, at build time
PROTO_GEN := $(patsubst core/proto/%.proto,$(O)/gen/%.pb-c.c,$(wildcard core/proto/*.proto))
CORE_OBJS := $(CORE_SRCS:%.c=$(O)/%.o) $(PROTO_GEN:.c=.o)
# the command: builtin-*.c at the top, one per command, the rest by concern in
# perf-plugin/{util,stat,replay,report,chart,html}/ (docs/architecture.md);
# its files include each other by folder ("util/cli.h") from perf-plugin/
CLI_SRCS := $(wildcard perf-plugin/*.c perf-plugin/*/*.c)
CLI_HEADERS := $(wildcard perf-plugin/*.h perf-plugin/*/*.h)
CLI_INC := -Iperf-plugin
CLI_OBJS := $(CLI_SRCS:%.c=$(O)/%.o)
# the standalone kernel replayer that `tlreplay pack --kdb` ships, as bytes
KPACK_SRC := core/record/standalone/replay.c
CLI_OBJS += $(O)/gen/kpack_replayer.o
HEADERS := $(wildcard core/include/tlreplay/*.h)

LIB_A := $(O)/libtlreplay.a
LIB_SO := $(O)/libtlreplay.so.$(VERSION)
LIB_SONAME := libtlreplay.so.$(SOVERSION)
BIN := $(O)/tlreplay
PC := $(O)/tlreplay.pc

GDB_PKG := $(wildcard gdb/tlreplay_gdb/*.py)
WORKER_PKG := $(wildcard core/replay/tlreplay_replay/*.py)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)

# GPU metrics (see the GPU section below): defined before `all` names them
CUDA_HOME ?= /usr/local/cuda
CUDA_INCS := $(wildcard $(CUDA_HOME)/include $(CUDA_HOME)/extras/CUPTI/include)
# (NVPW's metrics evaluator, which the legacy path needs, is in CUDA 11.4 and newer)
HAVE_CUDA_HEADERS := $(and $(wildcard $(CUDA_HOME)/include/cuda.h),\
	$(wildcard $(addsuffix /cupti_profiler_target.h,$(CUDA_INCS))),\
	$(shell grep -ls NVPW_CUDA_MetricsEvaluator_Initialize $(addsuffix /nvperf_cuda_host.h,$(CUDA_INCS))))
GPU_SRCS := $(wildcard core/gpu/*.c)
GPU_OBJS := $(GPU_SRCS:%.c=$(O)/%.o)
GPU_LIB := $(if $(HAVE_CUDA_HEADERS),$(O)/libtlreplay_gpu.so)
GPU_FAKES := $(if $(HAVE_CUDA_HEADERS),$(O)/tests/libfake_cupti.so $(O)/tests/libfake_cuda.so)
GPU_CFLAGS = $(LIB_CFLAGS) $(addprefix -isystem ,$(CUDA_INCS))
FAKE_CFLAGS = -std=c11 -D_GNU_SOURCE $(OPT) $(WARNINGS) -fPIC -shared

# the kernel recorder (its rules below)
REC_SRCS := $(wildcard core/record/*.c)
REC_LIB := $(O)/libtlreplay-record.so

.PHONY: all check test demo bench install uninstall clean unit-tests fuzz bundle gpu-check tsan-check tsan-tools
.DEFAULT_GOAL := all

all: $(LIB_A) $(LIB_SO) $(BIN) $(PC) $(O)/perf-tlreplay $(GPU_LIB) $(REC_LIB)

$(O)/%.o: %.c $(HEADERS) $(wildcard core/src/*/*.h core/replay/*.h) $(CLI_HEADERS)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(if $(filter core/%,$<),$(LIB_CFLAGS),$(CFLAGS_ALL) $(CLI_INC)) -c -o $@ $<

$(O)/gen/%.pb-c.c $(O)/gen/%.pb-c.h: core/proto/%.proto
	@mkdir -p $(dir $@)
	$(call say,PROTOC,$<)
	$(Q)$(PROTOC_C) --c_out=$(O)/gen --proto_path=core/proto $<

$(O)/gen/%.pb-c.o: $(O)/gen/%.pb-c.c
	$(call say,CC,$<)
	$(Q)$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(O)/core/src/trace/xplane.o: $(PROTO_GEN:.c=.h)

$(O)/gen/kpack_replayer.c: $(KPACK_SRC)
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q){ echo '/* generated from $(KPACK_SRC) by the Makefile */'; echo '#include <stddef.h>'; \
	  echo 'extern const unsigned char kpack_replayer[];'; echo 'extern const size_t kpack_replayer_len;'; \
	  echo 'const unsigned char kpack_replayer[] = {'; \
	  od -An -v -tx1 $(KPACK_SRC) | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; echo 'const size_t kpack_replayer_len = sizeof(kpack_replayer);'; } >$@.tmp && mv $@.tmp $@

$(O)/gen/kpack_replayer.o: $(O)/gen/kpack_replayer.c
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

# The HTML report's stylesheet and script, compiled into the command as C
# strings (html-report.c): one static char array per file, html_report_css
# for report.css. '?' is escaped too, so that no trigraph forms.
HTML_ASSETS := $(sort $(wildcard perf-plugin/html/assets/*.css perf-plugin/html/assets/*.js))
$(O)/gen/html-assets.h: $(HTML_ASSETS) Makefile
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)for f in $(HTML_ASSETS); do \
		printf 'static const char html_%s[] =\n' "$$(basename $$f | tr '.-' '__')"; \
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$$/\\n"/' $$f; \
		printf ';\n'; \
	done >$@.tmp && mv $@.tmp $@

$(O)/perf-plugin/html/html-report.o: $(O)/gen/html-assets.h

$(LIB_A): $(CORE_OBJS)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(CORE_OBJS) core/libtlreplay.map
	$(call say,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=core/libtlreplay.map \
		-o $@ $(CORE_OBJS) $(LDFLAGS_ALL) $(LDLIBS_CORE)
	$(Q)ln -sf $(notdir $@) $(O)/$(LIB_SONAME) && ln -sf $(LIB_SONAME) $(O)/libtlreplay.so

$(BIN): $(CLI_OBJS) $(LIB_A)
	$(call say,LD,$@)
	$(Q)$(CC) -o $@ $(CLI_OBJS) $(LIB_A) $(LDFLAGS_ALL) $(LDLIBS_CORE)

# `perf tlreplay ...` runs perf-tlreplay from perf's exec path or PATH.
$(O)/perf-tlreplay: perf-plugin/perf-tlreplay.sh
	$(call say,GEN,$@)
	$(Q)install -m 755 $< $@

$(PC): core/tlreplay.pc.in
	$(call say,GEN,$@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# ------------------------------------------------------------------ kernel recorder
# libtlreplay-record.so: the LD_PRELOAD library of `tlreplay record`
# (core/record/, docs/kernel-replay.md). libc only, and never sanitized: it
# is preloaded into programs that are not, and a sanitizer runtime must come
# first in a process.
REC_CFLAGS = $(BASE_CFLAGS) -fPIC -fvisibility=hidden $(CFLAGS) $(EXTRA_CFLAGS)

$(REC_LIB): $(REC_SRCS) $(wildcard core/record/*.h) $(wildcard core/src/common/*.h) core/src/common/sha256.c
	@mkdir -p $(dir $@)
	$(call say,LD,$@)
	$(Q)$(CC) $(REC_CFLAGS) -shared -Wl,-soname,libtlreplay-record.so -o $@ $(REC_SRCS) \
		core/src/common/sha256.c -ldl -lpthread

# The stand-in CUDA driver, kernels and program of the record/replay tests.
include tests/fakes/fakes.mk

# ------------------------------------------------------------------ GPU metrics (optional)
# libtlreplay_gpu.so: CUPTI metrics for the replay worker, which loads it with
# ctypes. Built only where the CUDA headers are (CUDA_HOME, default
# /usr/local/cuda; CUPTI's headers in include/ or extras/CUPTI/include); it
# links nothing of CUDA: libcupti, libnvperf_host and libcuda are dlopen()ed
# at run time. The fakes stand in for libcupti, libcuda and NVML in the tests.

$(O)/core/gpu/%.o: core/gpu/%.c $(wildcard core/gpu/*.h)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(GPU_CFLAGS) -c -o $@ $<

$(O)/libtlreplay_gpu.so: $(GPU_OBJS)
	$(call say,LD,$@)
	$(Q)$(CC) -shared -o $@ $(GPU_OBJS) $(LDFLAGS_ALL)

$(O)/tests/libfake_nvml.so: tests/unit/fake_nvml.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(FAKE_CFLAGS) -o $@ $<

$(O)/tests/libfake_cuda.so: tests/unit/fake_cuda.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(FAKE_CFLAGS) -o $@ $<

$(O)/tests/libfake_cupti.so: tests/unit/fake_cupti.c core/gpu/cupti_abi.h
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(FAKE_CFLAGS) -Icore/gpu $(addprefix -isystem ,$(CUDA_INCS)) -o $@ $<

# ------------------------------------------------------------------ tests

$(O)/tests/%: tests/unit/%.c tests/unit/tap.h $(wildcard tests/fuzz/*.h core/src/*/*.h tests/unit/*.h perf-plugin/chart/*.[ch] perf-plugin/stat/stat-format.[ch]) $(LIB_A)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS_ALL) $(CLI_INC) -Itests/unit -o $@ $< $(LIB_A) $(LDFLAGS_ALL) $(LDLIBS_CORE)

# test tools: programs the shell and Python tests drive (not TAP producers)
TOOL_BINS := $(patsubst tests/tools/%.c,$(O)/tests/tools/%,$(wildcard tests/tools/*.c))
$(O)/tests/tools/%: tests/tools/%.c $(wildcard core/src/*/*.h tests/fuzz/*.h) $(LIB_A)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB_A) $(LDFLAGS_ALL) $(LDLIBS_CORE)

# diff_tree_drv drives perf-plugin/report/diff-tree.c, so it links the CLI objects (not main)
DIFF_DRV_OBJS := $(filter-out $(O)/perf-plugin/tlreplay.o,$(CLI_OBJS))
$(O)/tests/tools/diff_tree_drv: tests/tools/diff_tree_drv.c $(DIFF_DRV_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS_ALL) $(CLI_INC) -o $@ $< $(DIFF_DRV_OBJS) $(LIB_A) $(LDFLAGS_ALL) $(LDLIBS_CORE)

unit-tests: $(UNIT_BINS) $(TOOL_BINS) $(KDRV_BINS)

# test_nvinfo includes the recorder's image readers
$(O)/tests/test_nvinfo: core/record/rec_nvinfo.c core/record/rec_image.c core/record/rec.h
# test_zip_writer includes pack's zip writer
$(O)/tests/test_zip_writer: perf-plugin/util/zip-writer.c perf-plugin/util/zip-writer.h
# test_kernel_verdict includes the replay's kernel verdicts
$(O)/tests/test_kernel_verdict: perf-plugin/replay/kernel-verdict.c perf-plugin/replay/replay-common.h

# the tests that load them (test_gpu skips itself without GPU_LIB)
$(O)/tests/test_energy: $(O)/tests/libfake_nvml.so
$(O)/tests/test_gpu: $(GPU_LIB) $(GPU_FAKES)

# Each test is a TAP producer; prove runs them all. Tests that need the real
# traces in ../shared print "# SKIP" when it is absent.
# check builds what the tests need and runs the fuzzers with CHECK_JOBS jobs,
# and PROVE_JOBS test files at once (prove -j); both default to the CPUs
# here, whatever -j make was given (`make check` alone must not take twice
# as long on two cores).
NPROC := $(shell nproc 2>/dev/null || echo 1)
CHECK_JOBS ?= $(NPROC)
PROVE_JOBS ?= $(NPROC)
# every test file; the slowest start first, so that no long one is left to
# run alone at the end of a parallel prove
CHECK_TESTS = $(UNIT_BINS) $(wildcard tests/cli/*.sh tests/replay/*.sh tests/kreplay/*.sh tests/conformance/*.sh \
	tests/gdb/*.sh) tests/tsan/test_analyses.sh $(if $(SANITIZER),,$(wildcard tests/memcheck/*.sh))
CHECK_SLOW := tests/replay/test_gpu_check.sh tests/replay/test_cli.sh tests/memcheck/test_valgrind.sh \
	tests/replay/test_worker.sh tests/replay/test_stat.sh tests/replay/test_ir_safety.sh
CHECK_ORDER = $(filter $(CHECK_TESTS),$(CHECK_SLOW)) $(filter-out $(CHECK_SLOW),$(CHECK_TESTS))
CHECK_NEEDS = all unit-tests $(FUZZ_BINS) bundle gpu-check $(if $(SANITIZER),,tsan-tools)
check:
	@echo "  BUILD    what the tests need ($(CHECK_JOBS) jobs)"
	$(Q)$(MAKE) --no-print-directory -j$(CHECK_JOBS) $(CHECK_NEEDS)
	$(Q)$(MAKE) --no-print-directory -j$(CHECK_JOBS) -Otarget fuzz
	@echo "  TEST     the unit tests, then tests/*/*.sh (prove, $(PROVE_JOBS) at once; about 12 minutes on 2 cores)"
	$(Q)TLREPLAY=$(abspath $(BIN)) TLREPLAY_BUILD=$(abspath $(O)) TLREPLAY_SHARED=$(SHARED) \
		TLREPLAY_CFLAGS="$(SANFLAGS)" $(if $(SANITIZER),,TLREPLAY_TSAN_BUILD=$(abspath $(TSAN_O))) \
		PYTHON=$(PYTHON) prove -f --timer -j$(PROVE_JOBS) $(if $(V),-v) $(CHECK_ORDER)

# The library and tests/tools/analyses_threads under ThreadSanitizer, in
# $(O)/tsan: every analysis in threads (tests/tsan/test_analyses.sh), about a
# minute of build. Not with another SANITIZER (they do not mix).
TSAN_O := $(O)/tsan
tsan-tools:
	$(Q)$(MAKE) --no-print-directory O=$(TSAN_O) SANITIZER=thread $(TSAN_O)/tests/tools/analyses_threads

test: check

# The threaded commands under ThreadSanitizer (build-tsan/, a few minutes of
# build; not part of check).
tsan-check:
	$(Q)$(MAKE) --no-print-directory O=build-tsan SANITIZER=thread all build-tsan/tests/tools/analyses_threads
	$(Q)TLREPLAY=$(abspath build-tsan/tlreplay) TLREPLAY_SHARED=$(SHARED) PYTHON=$(PYTHON) \
		TLREPLAY_TSAN_BUILD=$(abspath build-tsan) prove -f $(if $(V),-v) tests/tsan/*.sh

# ------------------------------------------------------------------ fuzzing
# libFuzzer through clang; with gcc (or without libFuzzer) the same target is
# built as a replay driver over the corpus, so `make check` still runs it.
# Every tests/fuzz/fuzz_NAME.c is a target, seeded from tests/fuzz/corpus-NAME/
# (fuzz_load from tests/fuzz/corpus/), run for FUZZ_SECONDS each: the loader
# and the analyses; the parsers of small formats (events, schemas, IR, kdb,
# stores, summaries, ranks), fast per input, for FUZZ_SHORT_SECONDS.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 20
FUZZ_SHORT_SECONDS ?= 8
FUZZ_LONG := fuzz_load fuzz_analyses
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(O)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
# clang with libFuzzer: ASan + UBSan objects, instrumented for coverage; else
# the compiler at hand, and the targets replay their corpus (standalone.h)
FUZZ_HAVE_LIBFUZZER := $(shell echo 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){return 0;}' | \
	$(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null && echo yes)
ifeq ($(FUZZ_HAVE_LIBFUZZER),yes)
FUZZ_COMPILE := $(FUZZ_CC) -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJ_FLAGS := -fsanitize=fuzzer-no-link
FUZZ_LINK_FLAGS := -fsanitize=fuzzer
else
FUZZ_COMPILE := $(CC) -DTL_FUZZ_STANDALONE
endif
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g -Icore/include -Icore/src -I$(O)/gen -Iperf-plugin
# The library and the command's files (fuzz_analyses draws report --html's
# page), built once for every target, in $(O)/fuzz/obj.
FUZZ_LIB_SRCS := $(CORE_SRCS) $(PROTO_GEN)
FUZZ_CLI_SRCS := $(filter-out perf-plugin/tlreplay.c,$(CLI_SRCS)) $(O)/gen/kpack_replayer.c
FUZZ_LIB_OBJS := $(patsubst %.c,$(O)/fuzz/obj/%.o,$(FUZZ_LIB_SRCS:$(O)/%=%))
FUZZ_CLI_OBJS := $(patsubst %.c,$(O)/fuzz/obj/%.o,$(FUZZ_CLI_SRCS:$(O)/%=%))

$(O)/fuzz/obj/gen/%.o: $(O)/gen/%.c $(PROTO_GEN:.c=.h)
	@mkdir -p $(dir $@)
	$(call say,FUZZCC,$<)
	$(Q)$(FUZZ_COMPILE) $(FUZZ_OBJ_FLAGS) $(FUZZ_CFLAGS) -c -o $@ $<
$(O)/fuzz/obj/%.o: %.c $(HEADERS) $(wildcard core/src/*/*.h) $(CLI_HEADERS) $(PROTO_GEN:.c=.h) $(O)/gen/html-assets.h
	@mkdir -p $(dir $@)
	$(call say,FUZZCC,$<)
	$(Q)$(FUZZ_COMPILE) $(FUZZ_OBJ_FLAGS) $(FUZZ_CFLAGS) -c -o $@ $<
$(O)/fuzz/libfuzz.a: $(FUZZ_LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^
$(O)/fuzz/libfuzzcli.a: $(FUZZ_CLI_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(O)/fuzz/libfuzz.a $(O)/fuzz/libfuzzcli.a
	@mkdir -p $(dir $@)
	$(call say,FUZZ,$@)
	$(Q)$(FUZZ_COMPILE) $(FUZZ_LINK_FLAGS) $(FUZZ_CFLAGS) -o $@ $< $(O)/fuzz/libfuzzcli.a $(O)/fuzz/libfuzz.a \
		$(LDLIBS_CORE)

# fuzz_images includes the recorder's image reader
$(O)/fuzz/fuzz_images: core/record/rec_nvinfo.c core/record/rec.h

# each target's run is its own goal, so that make -j runs them side by side
FUZZ_RUNS := $(patsubst %,fuzz-run-%,$(notdir $(FUZZ_BINS)))
fuzz: $(FUZZ_RUNS)
fuzz-run-%: $(O)/fuzz/%
	$(Q)case " $(FUZZ_LONG) " in *" $* "*) s=$(FUZZ_SECONDS) ;; *) s=$(FUZZ_SHORT_SECONDS) ;; esac; \
		printf '  %-8s %s (%s s)\n' FUZZRUN "$*" "$$s"; \
		FUZZ_SECONDS=$$s sh tests/fuzz/run.sh $< $(O)/fuzz/work-$*

# ------------------------------------------------------------------ demo, bench

demo: all
	$(Q)sh scripts/demo.sh $(abspath $(BIN)) $(O)/demo

bench: all
	$(Q)sh bench/run.sh $(abspath $(BIN)) $(SHARED)

# ------------------------------------------------------------------ bundle
# A relocatable folder for machines where nothing can be installed (the GPU
# machines): bin/tlreplay links libdeflate and zlib statically and finds
# libcjson (shared only on Debian) in ../lib through an $ORIGIN RPATH;
# lib/libtlreplay.so (for ctypes users such as gdb) finds its libraries
# beside it; the replay worker and schema snapshots sit in ../share as after
# make install.
# Needs glibc >= 2.34 where it runs.
BUNDLE_NAME := tlreplay-$(VERSION)-$(shell uname -m)
BUNDLE := $(O)/bundle/$(BUNDLE_NAME)
CJSON_SO := $(shell $(CC) -print-file-name=libcjson.so.1)

bundle: $(BUNDLE)/bin/tlreplay
	$(call say,TAR,$(O)/bundle/$(BUNDLE_NAME).tar.gz)
	$(Q)tar -C $(O)/bundle -czf $(O)/bundle/$(BUNDLE_NAME).tar.gz $(BUNDLE_NAME)

$(BUNDLE)/bin/tlreplay: $(CLI_OBJS) $(LIB_A) $(LIB_SO) $(GPU_LIB) $(REC_LIB) $(O)/perf-tlreplay core/replay/tlreplay_worker.py \
		$(WORKER_PKG) $(wildcard core/replay/schemas/*.json.gz) docs/tlreplay.1 gdb/tlreplay.py gdb/tlreplay-gdb.sh $(GDB_PKG)
	$(call say,BUNDLE,$(BUNDLE))
	$(Q)rm -rf $(BUNDLE) && mkdir -p $(BUNDLE)/bin $(BUNDLE)/lib $(BUNDLE)/share/tlreplay/replay/tlreplay_replay \
		$(BUNDLE)/share/tlreplay/schemas $(BUNDLE)/share/man/man1
	$(Q)$(CC) -o $(BUNDLE)/bin/tlreplay $(CLI_OBJS) $(LIB_A) $(LDFLAGS_ALL) \
		-Wl,-Bstatic -ldeflate -lz -lprotobuf-c -Wl,-Bdynamic -lcjson -lxlsxwriter -lm -lpthread \
		-Wl,--disable-new-dtags -Wl,-rpath,'$$ORIGIN/../lib'
	$(Q)cp -L $(CJSON_SO) $(BUNDLE)/lib/
	@# Debian ships libxlsxwriter shared only; it brings minizip and libcrypto
	$(Q)cp -L $(foreach l,libxlsxwriter.so.4 libminizip.so.1 libcrypto.so.3,$(shell $(CC) -print-file-name=$(l))) $(BUNDLE)/lib/
	$(Q)$(CC) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=core/libtlreplay.map \
		-o $(BUNDLE)/lib/$(notdir $(LIB_SO)) $(CORE_OBJS) $(LDFLAGS_ALL) $(LDLIBS_CORE) \
		-Wl,--disable-new-dtags -Wl,-rpath,'$$ORIGIN'
	$(Q)ln -sf $(notdir $(LIB_SO)) $(BUNDLE)/lib/$(LIB_SONAME)
	$(Q)cp -L $(shell $(CC) -print-file-name=libdeflate.so.0) $(shell $(CC) -print-file-name=libz.so.1) \
		$(shell $(CC) -print-file-name=libprotobuf-c.so.1) $(BUNDLE)/lib/
	$(Q)install -m 755 $(O)/perf-tlreplay $(BUNDLE)/bin/
	$(if $(GPU_LIB),$(Q)install -m 755 $(GPU_LIB) $(BUNDLE)/lib/)
	$(Q)install -d $(BUNDLE)/lib/tlreplay && install -m 755 $(REC_LIB) $(BUNDLE)/lib/tlreplay/
	$(Q)install -m 644 core/replay/tlreplay_worker.py $(BUNDLE)/share/tlreplay/replay/
	$(Q)install -m 644 $(WORKER_PKG) $(BUNDLE)/share/tlreplay/replay/tlreplay_replay/
	$(Q)install -m 644 $(wildcard core/replay/schemas/*.json.gz) $(BUNDLE)/share/tlreplay/schemas/
	$(Q)install -m 644 docs/tlreplay.1 $(BUNDLE)/share/man/man1/
	$(Q)mkdir -p $(BUNDLE)/share/tlreplay/gdb/tlreplay_gdb
	$(Q)install -m 644 gdb/tlreplay.py $(BUNDLE)/share/tlreplay/gdb/
	$(Q)install -m 644 $(GDB_PKG) $(BUNDLE)/share/tlreplay/gdb/tlreplay_gdb/
	$(Q)install -m 755 gdb/tlreplay-gdb.sh $(BUNDLE)/bin/tlreplay-gdb

# ------------------------------------------------------------------ GPU check
# One folder to carry to a bare GPU machine: the bundle, the H100 traces of
# $(SHARED), the check (bench/gpu-check) and its stand-ins for the dry run
# that make check does here (tests/replay/test_gpu_check.sh).
GPU_CHECK := $(O)/gpu-check

gpu-check: bundle $(GPU_FAKES) $(O)/tests/libfake_nvml.so $(KDRV_BINS)
	$(call say,GEN,$(GPU_CHECK))
	$(Q)sh bench/gpu-check/prepare.sh $(BUNDLE) $(O) $(SHARED) $(GPU_CHECK)

# ------------------------------------------------------------------ install

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/tlreplay $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(bash_compdir)
	install -m 755 $(BIN) $(O)/perf-tlreplay $(DESTDIR)$(BINDIR)/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	$(if $(GPU_LIB),install -m 755 $(GPU_LIB) $(DESTDIR)$(LIBDIR)/)
	install -d $(DESTDIR)$(LIBDIR)/tlreplay
	install -m 755 $(REC_LIB) $(DESTDIR)$(LIBDIR)/tlreplay/
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libtlreplay.so
	install -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/tlreplay/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' core/tlreplay.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/tlreplay.pc
	install -m 644 docs/tlreplay.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 scripts/bash-completion/tlreplay $(DESTDIR)$(bash_compdir)/tlreplay
	install -d $(DESTDIR)$(DATADIR)/tlreplay/replay/tlreplay_replay $(DESTDIR)$(DATADIR)/tlreplay/schemas
	install -m 644 core/replay/tlreplay_worker.py $(DESTDIR)$(DATADIR)/tlreplay/replay/
	install -m 644 $(WORKER_PKG) $(DESTDIR)$(DATADIR)/tlreplay/replay/tlreplay_replay/
	install -m 644 $(wildcard core/replay/schemas/*.json.gz) $(DESTDIR)$(DATADIR)/tlreplay/schemas/
	install -d $(DESTDIR)$(DATADIR)/tlreplay/gdb/tlreplay_gdb
	install -m 644 gdb/tlreplay.py $(DESTDIR)$(DATADIR)/tlreplay/gdb/
	install -m 644 $(GDB_PKG) $(DESTDIR)$(DATADIR)/tlreplay/gdb/tlreplay_gdb/
	install -m 755 gdb/tlreplay-gdb.sh $(DESTDIR)$(BINDIR)/tlreplay-gdb

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tlreplay $(DESTDIR)$(BINDIR)/perf-tlreplay $(DESTDIR)$(BINDIR)/tlreplay-gdb
	rm -f $(DESTDIR)$(LIBDIR)/libtlreplay.a $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO))
	rm -f $(DESTDIR)$(LIBDIR)/$(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libtlreplay.so
	rm -f $(DESTDIR)$(LIBDIR)/pkgconfig/tlreplay.pc $(DESTDIR)$(LIBDIR)/libtlreplay_gpu.so
	rm -rf $(DESTDIR)$(LIBDIR)/tlreplay
	rm -rf $(DESTDIR)$(INCLUDEDIR)/tlreplay
	rm -f $(DESTDIR)$(MANDIR)/man1/tlreplay.1 $(DESTDIR)$(bash_compdir)/tlreplay
	rm -rf $(DESTDIR)$(DATADIR)/tlreplay

clean:
	rm -rf $(O)

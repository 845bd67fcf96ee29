# The stand-in CUDA driver and its test program, for record/replay tests on
# machines without a GPU (included from the top Makefile).
#
#   $(O)/tests/kdrv/libcuda.so.1    the stand-in driver (soname libcuda.so.1)
#   $(O)/tests/kdrv/libcuda.so      symlink to it
#   $(O)/tests/kdrv/libkkernels.so  the test kernels: this file's bytes are
#                                   the module image kapp loads
#   $(O)/tests/kdrv/kapp            the test "CUDA application" (finds
#                                   libcuda.so.1 beside itself: rpath $ORIGIN)
#
# Uses $(O), $(CC), $(OPT), $(WARNINGS), $(Q), $(call say,...).
# Nothing here is built with $(SANFLAGS): a module image must load into any
# process, and the program runs with the (unsanitized) recorder preloaded,
# which a sanitizer runtime refuses (it must come first in a process). A
# sanitized tlreplay loads the stand-in driver with dlopen, which is fine.

# (rules here must not become the default goal when included early)
KDRV_SAVED_GOAL := $(.DEFAULT_GOAL)

KDRV_SRC := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
KDRV_DIR := $(O)/tests/kdrv

KDRV_LIB := $(KDRV_DIR)/libcuda.so.1
KDRV_LINK := $(KDRV_DIR)/libcuda.so
KDRV_KERNELS := $(KDRV_DIR)/libkkernels.so
KDRV_APP := $(KDRV_DIR)/kapp
KDRV_BINS := $(KDRV_LIB) $(KDRV_LINK) $(KDRV_KERNELS) $(KDRV_APP)

KDRV_CFLAGS = -std=c11 -D_GNU_SOURCE $(OPT) $(WARNINGS)

$(KDRV_LIB): $(KDRV_SRC)/kdriver.c $(KDRV_SRC)/kdriver_kernel.h
	$(call say,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(KDRV_CFLAGS) -fPIC -shared -Wl,-soname,libcuda.so.1 \
		-o $@ $< -ldl

$(KDRV_LINK): $(KDRV_LIB)
	@mkdir -p $(@D)
	$(Q)ln -sfn libcuda.so.1 $@

$(KDRV_KERNELS): $(KDRV_SRC)/kkernels.c $(KDRV_SRC)/kdriver_kernel.h
	$(call say,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(KDRV_CFLAGS) -fPIC -shared -Wl,-soname,libkkernels.so -o $@ $<

$(KDRV_APP): $(KDRV_SRC)/kapp.c $(KDRV_LIB) $(KDRV_LINK)
	$(call say,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(KDRV_CFLAGS) -o $@ $< \
		-L$(KDRV_DIR) -l:libcuda.so.1 -Wl,-rpath,'$$ORIGIN' -ldl

.PHONY: kdrv
kdrv: $(KDRV_BINS)

.DEFAULT_GOAL := $(KDRV_SAVED_GOAL)

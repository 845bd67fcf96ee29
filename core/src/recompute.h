/* SPDX-License-Identifier: MIT */
/* Activation-recompute detection (torch.utils.checkpoint). */
#ifndef TL_RECOMPUTE_H
#define TL_RECOMPUTE_H

#include "trace_internal.h"

/* Build the tree with python functions and mark every event below a
 * python_function whose name holds "torch/utils/checkpoint.py" and
 * "recompute_fn" (TraceLens's --detect_recompute). *out: malloc'ed, one byte
 * per UID (0/1). */
int tl_recompute_flags(struct tl_trace *tr, uint8_t **out);

#endif

/* SPDX-License-Identifier: MIT */
/* analysis: what a trace says about GPU time, read from the event table and
 * the call tree: the TraceLens GPU timeline breakdown (timeline.c), the ops
 * and kernels summaries (summary_ops.c, summary_kernels.c) with TraceLens's
 * op categories (op_category.c), kernel launchers and their groups
 * (launchers.c, launcher_groups.c), activation recompute (recompute.c), the
 * vLLM/SGLang iteration around an op (batch_context.c), the health check
 * (health.c), launch statistics (launch_stats.c), iterations (steps.c) and
 * user annotations on the GPU (annotations.c). It depends on trace and base. */
#ifndef TL_ANALYSIS_INTERNAL_H
#define TL_ANALYSIS_INTERNAL_H

#include <cjson/cJSON.h>

#include "base/base_internal.h"
#include "trace/trace_internal.h"

/* =========================================================== op_category.c */

/* Op categories, by op name and first kernel name (TraceLens rules). */

/* @first_kernel may be NULL. Returns a static string. */
const char *tl_op_category_by_name(const char *name, const char *first_kernel);
/* Op name as the summaries group it (sglang_profiler call counters dropped):
 * @name itself, or @buf filled. */
const char *tl_op_norm_name(const char *name, char *buf, size_t n);
/* summary_ops.c: TraceLens's nn.Module call stack of op @uid (the op, then
 * its "nn.Module" ancestors, innermost first) as a Python list repr,
 * malloc'ed (NULL when out of memory); @parent_module gets its second frame
 * without "_<digits>", or "NA". Reads the trace only. */
char *tl_op_module_stack(const struct tl_trace *tr, uint64_t uid, char *parent_module, size_t pmn);
/* For the unit tests: the registry must be sorted for bsearch. */
bool tl_op_category_registry_sorted(void);

/* ============================================================= recompute.c */

/* Activation-recompute detection (torch.utils.checkpoint). */

/* Build the tree with python functions and mark every event below a
 * python_function whose name holds "torch/utils/checkpoint.py" and
 * "recompute_fn" (TraceLens's --detect_recompute). *out: malloc'ed, one byte
 * per UID (0/1). */
int tl_recompute_flags(struct tl_trace *tr, uint8_t **out);

/* ============================================================== timeline.c */

/* The GPU class of a GPU event. */
enum tl_gpu_class tl_classify_gpu(const struct tl_trace *tr, const struct tl_ev *e);
/* Per-name GPU class table (malloc'ed, indexed by strtab id). */
int tl_gpu_classes(const struct tl_trace *tr, uint8_t **out);
/* The eight rows of @bd for the GPU events @uids (all zero when n is 0);
 * @cls from tl_gpu_classes(). 0 or -ENOMEM. */
int tl_breakdown_uids(const struct tl_trace *tr, const uint32_t *uids, size_t n, const uint8_t *cls,
		      struct tl_breakdown *bd);

/* ========================================================= batch_context.c */

/* The iteration annotation around event @uid as
 * {n_prefill, prefill_tokens, n_decode, decode_tokens[, *_kv_tokens]};
 * *out NULL when there is none. */
int tl_batch_context(struct tl_trace *tr, uint64_t uid, cJSON **out);

#endif

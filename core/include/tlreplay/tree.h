/* SPDX-License-Identifier: MIT */
/**
 * @file tree.h
 * @brief The host call tree and the CPU op -> runtime call -> GPU event links.
 *
 * tl_trace_link() builds, for a loaded trace:
 *  - one call stack per (pid, tid) over cpu_op, runtime and driver events
 *    (plus python_function when asked), with TraceLens's rules: events sorted
 *    by ts (ties keep file order), containment end-exclusive, an event that
 *    ends after its would-be parent is left out of the tree;
 *  - the link from each runtime/driver call to the GPU event it launched,
 *    through the ac2g flow pair of its correlation id (or External id on old
 *    traces), and from cudaGraphLaunch/hipGraphLaunch to every GPU event that
 *    carries its correlation;
 *  - forward/backward links by "Sequence number".
 * Every query below needs tl_trace_link() first (they return -1/false otherwise).
 * Building is idempotent; asking for another mode rebuilds.
 */
#ifndef TLREPLAY_TREE_H
#define TLREPLAY_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;

/** Options for tl_trace_link(); zero-initialise and set .sz. */
struct tl_link_opts {
	size_t sz;
	/** Put python_function events in the host tree (TraceLens's add_python_func). */
	bool with_python;
};

/** @return 0, or -ENOMEM. */
TL_API int tl_trace_link(struct tl_trace *tr, const struct tl_link_opts *opts);

/**
 * @brief Link launches as TraceLens does (@p on) or as tlreplay does (the
 *        default). TraceLens follows flow events of category "ac2g" only:
 *        the older Kineto's "async_cpu_to_gpu" flows link nothing there, and a
 *        trace without flows is not linked at all, where tlreplay links both
 *        (tl_trace_legacy_links() counts the first). Takes effect at the next
 *        link (a built tree is rebuilt on its next use).
 * @return 0; -EBUSY when capture traces were merged (the links are fixed).
 */
TL_API int tl_trace_set_tracelens_links(struct tl_trace *tr, bool on);

/** @return how many GPU events the last link reached through a flow of
 *          another category than "ac2g", which TraceLens does not follow (0
 *          before linking). */
TL_API uint64_t tl_trace_legacy_links(const struct tl_trace *tr);

/** @return how many launch flows (their start events) are of another category
 *          than "ac2g" (async_cpu_to_gpu ...); no linking needed. */
TL_API uint64_t tl_trace_legacy_flows(const struct tl_trace *tr);

/** @return "correlation" or "External id": the arg that links runtime and GPU events. */
TL_API const char *tl_trace_linking_key(const struct tl_trace *tr);

/** @return the parent UID, or -1 for a root, an event outside the tree or a bad UID. */
TL_API int64_t tl_event_parent(const struct tl_trace *tr, uint64_t uid);
/** @return the first child UID (children in call order, GPU events last), or -1. */
TL_API int64_t tl_event_first_child(const struct tl_trace *tr, uint64_t uid);
/** @return the next sibling UID, or -1. */
TL_API int64_t tl_event_next_sibling(const struct tl_trace *tr, uint64_t uid);
/** @return true if the event takes part in the host tree or is a linked GPU event. */
TL_API bool tl_event_in_tree(const struct tl_trace *tr, uint64_t uid);

/** @return true for a GPU event linked to the runtime call that launched it. */
TL_API bool tl_event_linked(const struct tl_trace *tr, uint64_t uid);

/**
 * @brief Kernel launcher of a linked GPU event: the first cpu_op above its
 *        runtime call (skipping python_function and the pass-through "execute"),
 *        else the runtime call itself.
 * @return the launcher UID, or -1 (unlinked or not a GPU event).
 */
TL_API int64_t tl_event_launcher(const struct tl_trace *tr, uint64_t gpu_uid);

/**
 * @brief All GPU events in the subtree of @p uid (for a GPU event: itself).
 * @param[out] out malloc'ed array (caller frees with free()), NULL if none.
 * @return the number of events, or -ENOMEM.
 */
TL_API int64_t tl_event_gpu_events(const struct tl_trace *tr, uint64_t uid, uint64_t **out);

/** @return the forward op of a backward autograd event, or -1. */
TL_API int64_t tl_event_fwd(const struct tl_trace *tr, uint64_t uid);
/**
 * @brief Backward autograd events linked to forward op @p uid.
 * @return how many there are (at most @p max are stored in @p out).
 */
TL_API size_t tl_event_bwd(const struct tl_trace *tr, uint64_t uid, uint64_t *out, size_t max);

/* ------------------------------------------------------------------ graph capture */

/** What tl_trace_merge_capture() did. */
struct tl_capture_result {
	size_t sz;
	unsigned captures;		/**< capture traces read */
	unsigned graph_launches;	/**< graph launches inside iteration annotations */
	unsigned merged;		/**< launches whose kernels now sit under capture-time ops */
	unsigned failed;		/**< launches left as they were (no capture, kernels do not align) */
	uint64_t events_added;		/**< copies of capture-trace events appended (new UIDs) */
	unsigned whole_trace;		/**< 1: no iteration annotation; the captures were of one batch
					     size and every graph launch was paired with them */
};

/**
 * @brief Add TraceLens's inference pseudo ops to a linked trace: for each
 *        vllm::moe_forward, a cpu_op per matmul_ogs kernel
 *        (pseudo_op::moe_triton_unfused_up, then _down) and one for its
 *        matmul_scatter (..._finalize_matmul_scatter), between the kernel's
 *        launch call and the op above it, with the MoE op's shapes and its
 *        "MoE topk" and "MoE GEMM gated" facts as args.
 *
 * The events get the next UIDs and no duration; the call tree is fixed from
 * then on (no later tl_trace_link rebuilds it). A second call adds nothing.
 * @param[out] added how many pseudo ops were added.
 * @return 0, -EINVAL if the call tree is not built, -ENOMEM.
 */
TL_API int tl_trace_add_pseudo_ops(struct tl_trace *tr, size_t *added);

/**
 * @brief Give the kernels of replayed CUDA graphs the ops their capture named,
 *        from PyTorch's graph annotations (torch.cuda._graph_annotations,
 *        PyTorch 2.12+: a kernel's args hold its "graph node id" and the
 *        "name" its mark_kernels scope gave). Each run of kernels of one name
 *        under a graph launch gets a cpu_op of that name, with a copy of the
 *        launch as their launch call, so op summaries show the regions, not the
 *        launch. Nothing to do after tl_trace_merge_capture() (it attributed
 *        them already) or without annotations. Fixes the call tree, as pseudo
 *        ops do.
 * @param[out] ops how many ops were added; @param[out] kernels how many
 *             kernels they own.
 * @return 0, or -ENOMEM.
 */
TL_API int tl_trace_apply_graph_annotations(struct tl_trace *tr, size_t *ops, size_t *kernels);

/**
 * @brief Attribute CUDA/HIP-graph kernels to the ops that launched them when the
 *        graph was captured (TraceLens's merge_capture_trace_into_graph).
 *
 * A replayed graph shows one cudaGraphLaunch/hipGraphLaunch for hundreds of
 * kernels. @p capture_dir holds the trace(s) recorded while the graphs were
 * captured (vLLM, SGLang) and optionally execution_details.json
 * ([{"file", "batch_size", "mode": "FULL"|"PIECEWISE"}]); without it each file's
 * batch size and mode are inferred (nothing is written to the directory).
 * Each graph launch inside an iteration annotation (execute_..., step[...]) is
 * paired with a capture window of the capture for the smallest captured batch
 * size >= the iteration's; the capture's launches are aligned with the replayed
 * kernels by kernel name, and the capture-time call tree (ops, nn.Modules) is
 * copied under the graph launch, each kernel under its capture launch. xDiT's
 * execute_diffusion_BATCH_WxH counts as an iteration annotation. A trace with
 * no iteration annotation at all (torch.compile, xDiT without one), whose
 * captures are all of one batch size, has every graph launch paired with
 * those captures (res->whole_trace); TraceLens merges nothing there.
 *
 * The copies get new UIDs from tl_trace_nevents() onwards (past the end of
 * traceEvents; tl_trace_nevents_file() is unchanged). The tree is built with
 * python functions and stays fixed afterwards.
 * @return 0; -ENOENT/-ENOTDIR (directory), -ENODATA (no trace in it),
 *         -EBADMSG (a capture trace or execution_details.json is malformed),
 *         -ENOMEM. @p res may be NULL.
 */
TL_API int tl_trace_merge_capture(struct tl_trace *tr, const char *capture_dir,
				  struct tl_capture_result *res);

#ifdef __cplusplus
}
#endif
#endif

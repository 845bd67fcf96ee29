/* SPDX-License-Identifier: MIT */
/**
 * @file ir.h
 * @brief PyTorch operator schemas and the replay IR entry of a traced op
 *        (docs/ir.md), without Python.
 *
 * A schema database holds the operator schemas of one torch build
 * (torch._C._jit_get_all_schemas(), as str(schema)): from a snapshot file
 * written by scripts/gen_schema_snapshot.py, or from the strings a Python
 * worker sends. tl_ir_entry() matches the arguments the profiler recorded for
 * a cpu_op (Input type, Input Dims, Input Strides, Concrete Inputs; traces
 * taken with record_shapes=True) against the overloads of its name and builds
 * the IR entry of docs/ir.md.
 *
 * Ownership: a struct tl_schema_db is created by tl_schema_db_load() or
 * tl_schema_db_from_strings() and released by tl_schema_db_free(); every
 * struct tl_schema and string obtained from it lives as long as the database.
 * A schema parsed with tl_schema_parse() is released with tl_schema_free().
 * The cJSON entry of tl_ir_entry() belongs to the caller (cJSON_Delete());
 * it holds copies, so it may outlive both the trace and the database.
 * A database is read-only once built and may be shared between threads.
 */
#ifndef TLREPLAY_IR_H
#define TLREPLAY_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;
struct tl_schema_db;
struct cJSON;

/* ------------------------------------------------------------------ schemas */

/** Element type of a schema argument, as far as replay cares. */
enum tl_arg_kind {
	TL_ARG_OTHER = 0,	/**< anything else: Dimname, Stream, t, Any, Dict(...), tuples, classes */
	TL_ARG_TENSOR,
	TL_ARG_INT,
	TL_ARG_SYMINT,
	TL_ARG_FLOAT,		/**< float, SymFloat */
	TL_ARG_SCALAR,		/**< Scalar (printed for the JIT type "number") */
	TL_ARG_BOOL,		/**< bool, SymBool */
	TL_ARG_STR,
	TL_ARG_SCALARTYPE,
	TL_ARG_LAYOUT,
	TL_ARG_MEMFMT,		/**< MemoryFormat */
	TL_ARG_DEVICE,
	TL_ARG_GENERATOR,
	TL_ARG_COMPLEX,
};

/** One argument of a parsed schema. Strings are NUL-terminated. */
struct tl_schema_arg {
	const char *name;
	const char *type;	/**< verbatim: "Tensor(a!)", "SymInt[2]", "Tensor?[]", "int[1]?" */
	const char *base;	/**< the element type's name: "Tensor", "SymInt", "Dict" */
	enum tl_arg_kind kind;	/**< of base; TL_ARG_OTHER for lists of lists */
	bool optional;		/**< may be None: "T?", "T[]?" */
	bool is_list;		/**< "T[]", "T[N]" */
	int list_size;		/**< N of "T[N]", 0 for "T[]" or not a list */
	bool elem_optional;	/**< "T?[]": a list whose elements may be None */
	bool alias;		/**< has an alias annotation: "(a)", "(a!)", "(a -> *)", "($0! -> )" */
	bool is_mutable;	/**< the op writes it: "(a!)" */
	const char *alias_set;	/**< "a", "$0"; NULL without annotation */
	bool kwarg_only;	/**< after "*" */
	bool has_default;
	const char *default_text;	/**< verbatim ("[1, 1]", "\"none\"", "None"), NULL without default */
};

/** A parsed schema "ns::name.overload(args) -> returns". */
struct tl_schema {
	const char *text;	/**< the schema string as given */
	const char *name;	/**< "aten::add" */
	const char *overload;	/**< "Tensor"; "" for the default overload */
	struct tl_schema_arg *args;
	size_t nargs;
	size_t npos;		/**< positional arguments (before "*") */
	bool varargs;		/**< "..." among the arguments: never matched */
	const char *returns;	/**< text after "->": "Tensor", "(Tensor, Tensor)", "()" */
	int nreturns;		/**< number of returns, -1 for "..." */
	size_t index;		/**< position in its database (registry order) */
};

/**
 * @brief Parse one schema string.
 * @param[out] out a new schema the caller frees with tl_schema_free().
 * @return 0, -EINVAL (tl_last_error() says where it stopped), -ENOMEM.
 */
TL_API int tl_schema_parse(const char *text, struct tl_schema **out);
TL_API void tl_schema_free(struct tl_schema *s);

/**
 * @brief Load a schema snapshot: .json or .json.gz (gzip detected from the
 *        content) holding {"torch": V, "schemas": [...]} or a bare list of
 *        schema strings. Strings that do not parse are skipped (debug log).
 * @return 0; -ENOENT/-EACCES/-EISDIR (file), -EBADMSG (not JSON, or not a
 *         snapshot; the message names the file), -ENOMEM.
 */
TL_API int tl_schema_db_load(const char *path, struct tl_schema_db **out);

/**
 * @brief Build a database from schema strings in registry order (the live
 *        registry a worker sends). Duplicates keep their first position.
 * @param label where they came from, e.g. "torch 2.7.0"; copied.
 */
TL_API int tl_schema_db_from_strings(const char *const *schemas, size_t n, const char *label,
				     struct tl_schema_db **out);

/** NULL is accepted. */
TL_API void tl_schema_db_free(struct tl_schema_db *db);

/** @return "torch 1.13.0a0" for a snapshot, the label given otherwise. */
TL_API const char *tl_schema_db_label(const struct tl_schema_db *db);

/** @return the number of schemas held (parsed, deduplicated). */
TL_API size_t tl_schema_db_count(const struct tl_schema_db *db);

/** @return how many input strings did not parse and were left out. */
TL_API size_t tl_schema_db_skipped(const struct tl_schema_db *db);

/** @return schema @p i in registry order, NULL past the end. */
TL_API const struct tl_schema *tl_schema_db_at(const struct tl_schema_db *db, size_t i);

/**
 * @brief All overloads of op @p name ("aten::add"), in registry order.
 * @param[out] out array owned by the database (untouched when none).
 * @return how many there are (0 if the op is unknown).
 */
TL_API size_t tl_schema_db_find(const struct tl_schema_db *db, const char *name,
				const struct tl_schema *const **out);

/* ------------------------------------------------------------------ IR entries */

/** Options for tl_ir_entry(); zero-initialise and set .sz = sizeof(opts). */
struct tl_ir_opts {
	size_t sz;
	const struct tl_schema_db *db;	/**< may be NULL only with allow_schemaless */
	/** Without a matching schema, type the arguments from the profile alone
	 *  ("schemaless": true, names arg0..), as TraceLens PR #607 does. */
	bool allow_schemaless;
	/** source.trace of the entry; NULL: tl_trace_path(). */
	const char *trace_label;
};

/**
 * @brief Build the replay IR entry (docs/ir.md) of cpu_op @p uid.
 *
 * The overload is the one whose arguments agree best with the recorded ones:
 * exact type agreement scores above mere compatibility (an integer for a
 * float, a dropped value for a str), a recorded argument count equal to the
 * schema's above one that leaves defaulted trailing arguments out; ties keep
 * registry order. The entry has op_name, replay_ir, uid, schema, overload,
 * trace_dur_us, gpu_time_us, kernels (GPU events whose launcher is @p uid)
 * and source; links the trace if it was not.
 *
 * Numbers whose JSON form must keep their kind (an integral float "2.0", an
 * integer beyond 2^53) are cJSON_Raw items. An infinite Scalar is written as
 * +-1.7976931348623157e308 with its text in tl_concrete (JSON has no inf).
 * Values the profiler drops: a str takes its schema default (or a known one:
 * kv_cache_dtype "auto"), a Device or Generator is null (the replayer uses
 * its own). A TensorList's element dtype is not recorded either: it is that
 * of the op's other tensor argument, else of the latest earlier op on the
 * same thread with a tensor of an element's shape (int64 for Tensor?[]).
 * Integer tensors that index another argument (embedding, index_select,
 * gather, scatter, index, take, nll_loss, one_hot, ...) get a tl_init
 * {"kind": "randint", "low": 0, "high": N} with N the indexed size; for a
 * list of index tensors, the smallest of their bounds.
 *
 * @param[out] out the new entry, owned by the caller.
 * @return 0; -ERANGE (not a UID of @p tr), -ENODATA (the event has no
 *         recorded shapes, or is not a CPU op), -ENOTSUP (an autograd
 *         function such as CompiledFunction, not an operator), -ENOENT (op not in the
 *         database), -EINVAL (no overload matches: tl_last_error() names the
 *         argument of the closest one that failed and why; or no database),
 *         -EBADMSG (malformed args), -ENOMEM. With allow_schemaless, -ENOENT
 *         and -EINVAL give a schemaless entry instead.
 */
TL_API int tl_ir_entry(struct tl_trace *tr, uint64_t uid, const struct tl_ir_opts *opts,
		       struct cJSON **out);

/**
 * @return true if @p dtype is a tensor dtype string of the profiler
 *         ("float", "c10::BFloat16", "long int", ...; docs/ir.md's table).
 */
TL_API bool tl_ir_is_tensor_dtype(const char *dtype);

/* ------------------------------------------------------------------ FLOPs and bytes */

/**
 * @brief Floating-point operations and memory traffic of one call of an IR
 *        entry (docs/ir.md), from its shapes, dtypes and scalar arguments.
 *
 * Arguments are found by arg_name, or by position in a schemaless entry.
 * FLOPs (a multiply-add counts 2):
 *  - mm/bmm/matmul/mv/dot: 2*B*M*N*K (matmul broadcasts batch dims);
 *    addmm/baddbmm/addmv/addbmm and linear with a bias: + M*N per batch for
 *    the add (TraceLens's GEMM model); _scaled_mm likewise.
 *  - convolutions (convolution, _convolution, conv1d/2d/3d, conv_transpose*,
 *    cudnn_/miopen_/mkldnn_convolution): 2*N*Cout*prod(out spatial)*
 *    (Cin/groups)*prod(kernel), the output size from stride, padding
 *    (or "same"/"valid"), dilation, groups and output_padding; transposed:
 *    2*N*Cin*prod(in spatial)*(Cout/groups)*prod(kernel); + one FLOP per
 *    output element with a bias. convolution_backward: the forward's count
 *    for each of the input and weight gradients that output_mask asks for,
 *    + one per grad_output element for the bias gradient.
 *  - attention (scaled_dot_product_attention and its _efficient/_flash/
 *    _cudnn variants, _flash_attention_forward, _efficient_attention_forward):
 *    2*B*H*Lq*Lk*(D + Dv), i.e. 4*B*H*Lq*Lk*D; backward variants
 *    2*B*H*Lq*Lk*(3*D + 2*Dv) (recomputed QK^T, dV, dP, dQ, dK); halved when
 *    causal with Lq == Lk; softmax not counted. Varlen (cumulative sequence
 *    lengths, [T, H, D]): B = numel(cum_seq_q) - 1 sequences of equal length.
 *  - elementwise ops (add, mul, gelu, where, comparisons, ... and their
 *    in-place forms): 1 per output element, whatever the op; copies and
 *    fills (copy_, clone, _to_copy, fill_, zero_, cat): 0.
 *  - softmax/log_softmax 5 per element; layer/group/batch norm 8 (batch norm
 *    in eval 4); RMS norm (aten::rms_norm, vLLM _C::rms_norm) 4,
 *    _C::fused_add_rms_norm 5.
 *  - reductions and scans (sum, mean, amax, max, argmax, var, norm,
 *    linalg_vector_norm, cumsum, ...): 1 per input element.
 * Bytes: every tensor argument (and tensor-list element) read once, plus the
 * outputs the op's shape rule gives written once; out= arguments (and the
 * output first argument of vLLM _C::rms_norm) are written, not read; self of
 * copy_/fill_/zero_ is written only. Small side outputs (saved mean and
 * invstd, logsumexp, RNG state) are left out; max/min over a dim count their
 * int64 indices.
 *
 * @param[out] flops per call; NAN unless 0 is returned. May be NULL.
 * @param[out] bytes per call. On -ENOTSUP an estimate: the inputs plus an
 *        output as large as the largest input (NAN when no tensor shape is
 *        recorded). NAN if a dtype's size is unknown, or on -EINVAL. May be
 *        NULL.
 * @return 0; -ENOTSUP (an op it cannot count: FLOPs unknown);
 *         -EINVAL (not an IR entry, a malformed tensor, or shapes the op
 *         cannot take). tl_last_error() says why. Thread-safe.
 */
TL_API int tl_ir_flops(const struct cJSON *entry, double *flops, double *bytes);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: MIT */
/**
 * @file input.h
 * @brief Small inputs read whole, within a limit: IR files, schema
 *        snapshots, GPU specs, rank summaries, a capture's
 *        execution_details.json, a kernel record database's index.json and
 *        launches, the remembered trace, a results store's records.
 *
 * These are KB to MB. tl_input_read() holds each to a limit (1 GiB, or
 * $TLREPLAY_MAX_JSON) before reading a regular file, and while it reads a
 * pipe or inflates gzip, so a path such as /dev/zero or a gzip bomb ends in
 * a one-line error naming the file and the limit, not in exhausting memory
 * or $TMPDIR. It never blocks in open() on a FIFO that it will refuse, never
 * reads a device, and for a part of a directory of ours (a kernel record
 * database) refuses a symbolic link as well: a shared database or an
 * unpacked archive can carry one to anywhere. Traces are not read here:
 * they have their own limits (--max-text, tl_text_limits).
 *
 * Ownership: the buffer is the caller's (free()).
 * Thread-safety: any thread.
 */
#ifndef TLREPLAY_INPUT_H
#define TLREPLAY_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What tl_input_read() accepts besides a regular file, and how it reads. */
enum tl_input_flags {
	TL_INPUT_PIPE = 1,	/**< a pipe, FIFO or socket too (`<(zcat ir.json.gz)`, /dev/stdin) */
	TL_INPUT_PART = 2,	/**< a part of a directory of ours: a symbolic link is refused */
	TL_INPUT_GUNZIP = 4,	/**< gzip data is inflated; the limit holds for what it inflates to */
};

/** The limit when none is given: 1 GiB. */
#define TL_INPUT_MAX_DEFAULT (1ull << 30)

/**
 * @brief The limit of a small input: $TLREPLAY_MAX_JSON (a size as
 *        tl_parse_size() reads it; "0" or "none": no limit) or
 *        TL_INPUT_MAX_DEFAULT.
 */
TL_API uint64_t tl_input_max(void);

/**
 * @brief Read the file @p path whole.
 * @param what  what the file is, for messages ("an IR file", "a kernel record index").
 * @param flags tl_input_flags.
 * @param max   the most bytes it may hold (or inflate to); 0: tl_input_max().
 * @param[out] buf  the bytes and a NUL after them (free()); NULL on error.
 * @param[out] len  their count.
 * @return 0; -EFBIG (over @p max), -EINVAL (a device, a directory, a pipe
 *         where only a file will do, a symbolic link with TL_INPUT_PART),
 *         -EBADMSG (corrupt gzip), -ENOENT, -EACCES, -EIO, -ENOMEM; always
 *         one line in tl_last_error() naming @p path.
 */
TL_API int tl_input_read(const char *path, const char *what, unsigned flags, uint64_t max, char **buf,
			 size_t *len);

#ifdef __cplusplus
}
#endif

#endif

/* SPDX-License-Identifier: MIT */
/**
 * @file store.h
 * @brief The results store: every replay (uid, stat, replay, sweep) appends
 *        one JSON record per line to a file shared by parallel runs, and
 *        fold reads it back.
 *
 * Format: JSON Lines; record keys in docs/results-store.md. Appends take an
 * exclusive flock(2) and write each record with one write(2) followed by
 * fsync(2); an append that fails (a full disk) truncates the file back to
 * its size before the append, and a torn last line left by a killed writer
 * (no final newline) is cut off by the next append. So the file is always
 * a sequence of whole records, and readers take a shared lock.
 *
 * Ownership: records passed in are borrowed; records handed to the reader
 * callback are borrowed for the duration of the call.
 */
#ifndef TLREPLAY_STORE_H
#define TLREPLAY_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;
struct tl_trace;

/** Version of the record format ("v" key of every record). */
#define TL_STORE_VERSION 1

/**
 * @brief The store used when none is given: $TLREPLAY_STORE, else
 *        $XDG_STATE_HOME/tlreplay/results.jsonl, else
 *        $HOME/.local/state/tlreplay/results.jsonl.
 * @return a static (thread-local) string, valid until the next call on the
 *         thread; NULL if $HOME is unknown too.
 */
TL_API const char *tl_store_default_path(void);

/**
 * @brief Append @p rec (a cJSON object) as one line; "v" is set if absent.
 *        Creates the file (0644) and its directories (0755) if needed.
 *        Blocks while another process appends or reads.
 * @return 0; -ENOSPC/-EFBIG/-EIO/-EACCES... (the file is left as it was),
 *         -EINVAL (@p rec is not an object), -ENOMEM.
 */
TL_API int tl_store_append(const char *path, const struct cJSON *rec);

/** Called for each record, in file order, with its 1-based line number;
 *  return non-zero to stop (tl_store_read() then returns that value). */
typedef int (*tl_store_fn)(const struct cJSON *rec, size_t line, void *ctx);

/**
 * @brief Read every record of the store, under a shared lock (appends wait).
 *        Blank lines are skipped.
 * @param[out] torn set when the last line had no newline (a writer was
 *             killed mid-append): it is skipped, not an error. May be NULL.
 * @return 0, or the callback's non-zero value; -ENOENT (no store),
 *         -EBADMSG (a line that is not a JSON object: tl_last_error() names
 *         the file and line, "results.jsonl:12: ..."; records before it were
 *         delivered), -EACCES, -EIO.
 */
TL_API int tl_store_read(const char *path, tl_store_fn fn, void *ctx, bool *torn);

/**
 * @brief tl_store_read() from byte *@p pos on: 0, or where an earlier call
 *        left it. *@p pos is moved past each whole record delivered, so the
 *        next call reads only what was appended since (sweep's claims read
 *        what other sweeps added). Line numbers count from *@p pos. A store
 *        now shorter than *@p pos was replaced and is read from the start.
 * @return as tl_store_read().
 */
TL_API int tl_store_read_from(const char *path, uint64_t *pos, tl_store_fn fn, void *ctx, bool *torn);

/**
 * @brief Identity of a trace file for records ({"path", "size", "sig"}):
 *        path is absolute (symlinks resolved), size in bytes, and sig 16 hex
 *        digits hashing the size and the first and last MiB (CRC-32; the
 *        formula is in docs/results-store.md), so that a copied or renamed
 *        trace still matches its results, cheaply even for GBs.
 * @param[out] out a new cJSON object the caller frees with cJSON_Delete().
 * @return 0; -ENOENT/-EACCES (cannot open), -EINVAL (not a regular file),
 *         -EIO, -ENOMEM.
 */
TL_API int tl_store_trace_id(const char *path, struct cJSON **out);

#ifdef __cplusplus
}
#endif
#endif

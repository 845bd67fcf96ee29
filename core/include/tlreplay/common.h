/* SPDX-License-Identifier: MIT */
/**
 * @file common.h
 * @brief libtlreplay: read PyTorch/Kineto Chrome traces, navigate them by UID
 *        and compute TraceLens-compatible analyses.
 *
 * Conventions (shared by every header of this library):
 *  - Every public symbol starts with tl_. Handles are opaque.
 *  - Functions returning int return 0 on success and -errno on failure; a
 *    one-line, human-readable reason is then available from tl_last_error()
 *    (thread-local, valid until the next failing call on the same thread).
 *  - Strings returned by the library are owned by the object they come from
 *    (usually the struct tl_trace) and live as long as it does; never free them.
 *  - The library never prints. Diagnostics go to the callback set with
 *    tl_set_print(); the default callback discards everything below the level
 *    given by the TLREPLAY_LOG_LEVEL environment variable (error|warn|info|debug).
 *  - Thread-safety: distinct handles may be used from distinct threads (the
 *    library keeps no mutable state shared between handles but what is guarded:
 *    tests/cli/test_layering.sh holds the list). A single struct tl_trace may be
 *    read concurrently once loaded and linked (tl_trace_event, the tree's and
 *    links' getters, event args), but the functions that build derived state
 *    lazily (linking, summaries, analyses) must not race on one handle.
 *    tests/tsan/test_analyses.sh runs both under ThreadSanitizer.
 */
#ifndef TLREPLAY_COMMON_H
#define TLREPLAY_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TL_API __attribute__((visibility("default")))
#else
#define TL_API
#endif

#define TL_VERSION_MAJOR 0
#define TL_VERSION_MINOR 1
#define TL_VERSION_PATCH 0

/** @return the library version as "MAJOR.MINOR.PATCH" (static string). */
TL_API const char *tl_version(void);

enum tl_log_level {
	TL_LOG_ERROR = 0,
	TL_LOG_WARN = 1,
	TL_LOG_INFO = 2,
	TL_LOG_DEBUG = 3,
};

/** Log callback: @p msg is one line without a trailing newline. */
typedef void (*tl_print_fn)(enum tl_log_level level, const char *msg, void *ctx);

/**
 * @brief Route library diagnostics to @p fn (NULL restores the default, which
 *        writes to stderr messages at or below TLREPLAY_LOG_LEVEL, "warn" if unset).
 *        Call it before other threads use the library: the callback is read
 *        by every thread, unguarded. @p fn may be called from several threads at once.
 * @return the previous callback.
 */
TL_API tl_print_fn tl_set_print(tl_print_fn fn, void *ctx);

/**
 * @brief Reason for the last failure on this thread, e.g.
 *        "trace.json: truncated JSON at byte 1234 (line 40, column 7) in traceEvents[21]".
 * @return a static, thread-local string ("" if nothing failed yet).
 */
TL_API const char *tl_last_error(void);

/**
 * @brief Make the message in @p buf (NUL-terminated, @p size bytes of room)
 *        one printable line: each control character becomes "\n", "\r",
 *        "\t" or "\xHH", and what no longer fits is cut. Messages quote what
 *        a user typed or a file held (an event list, a path, an op name), which
 *        may hold a newline; tl_last_error() is always made so.
 */
TL_API void tl_one_line(char *buf, size_t size);

/**
 * @brief Parse a size as users write it: "8G", "500M", "1.5GB", "2GiB",
 *        "4096" (bytes; K/M/G/T are powers of 1024). "0", "none" and
 *        "unlimited" give 0 (no limit).
 * @return 0, or -EINVAL if @p s is not a size (*out untouched).
 */
TL_API int tl_parse_size(const char *s, uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif

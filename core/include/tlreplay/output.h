/* SPDX-License-Identifier: MIT */
/**
 * @file output.h
 * @brief Output files that appear whole or not at all, with the mode a new
 *        file gets (0666 & ~umask), and the directories they go in.
 *
 * tl_output_open() makes an unnamed file in the target's directory
 * (O_TMPFILE): killed at any moment, even by SIGKILL, the writer leaves
 * nothing behind. tl_output_commit() gives it its name (linkat, or a link to
 * a unique name renamed over an existing target), so a reader sees the old
 * file or the new whole one. Where the file system has no O_TMPFILE the file
 * is created under a unique hidden name beside the target and listed as
 * pending until commit or abort; tl_output_unlink_pending(), safe in a signal
 * handler, removes what is pending (a command calls it on SIGINT, SIGTERM,
 * SIGHUP and SIGBUS before it dies).
 *
 * Ownership: struct tl_output is the caller's; tl_output_open() fills it,
 * and exactly one of tl_output_commit() and tl_output_abort() releases what
 * it holds (both accept an output that failed to open, or was released).
 * Thread-safety: distinct outputs may be used from distinct threads.
 */
#ifndef TLREPLAY_OUTPUT_H
#define TLREPLAY_OUTPUT_H

#include <stdbool.h>
#include <sys/types.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tl_output {
	int fd;		/**< write here (-1 when not open) */
	char *path;	/**< the target, as given (a copy) */
	char *tmp;	/**< the pending name without O_TMPFILE, else NULL */
	int slot;	/**< its place in the pending list, or -1 */
};

/**
 * @brief Open an output for @p path; its directory must exist.
 * @return 0; -errno (tl_last_error() names the path).
 */
TL_API int tl_output_open(struct tl_output *o, const char *path);

/**
 * @brief Flush @p o to disk (fsync), give it the mode of a new file and its
 *        name, replacing any file of that name.
 * @return 0; -errno (nothing was put in place; tl_last_error() says why).
 */
TL_API int tl_output_commit(struct tl_output *o);

/**
 * @brief Commit the @p n outputs of @p v as one (the files of a directory
 *        output): each is flushed and given its mode, then all are named
 *        with SIGINT, SIGTERM and SIGHUP held back, so such a signal leaves
 *        the old files or all the new ones (SIGKILL, only in the instant of
 *        naming them, may leave some new and the rest old, each whole).
 *        Every output is released.
 * @return 0; -errno (tl_last_error() says which; outputs named before the
 *         failure stay named).
 */
TL_API int tl_output_commit_all(struct tl_output *v, size_t n);

/** Drop @p o: nothing of it stays. */
TL_API void tl_output_abort(struct tl_output *o);

/** Write @p len bytes of @p buf to @p o's file (all of them). 0 or -errno. */
TL_API int tl_output_write(struct tl_output *o, const void *buf, size_t len);

/** The mode a new file of this process gets: 0666 & ~umask. */
TL_API mode_t tl_output_mode(void);

/**
 * @brief Make directory @p dir and the missing ones above it (mode 0777 &
 *        ~umask, as mkdir -p). An existing directory is fine.
 * @return 0; -ENOTDIR (a part is a file), -errno (tl_last_error() names it).
 */
TL_API int tl_output_mkdirs(const char *dir);

/**
 * @brief Unlink every pending output (async-signal-safe; for a handler of a
 *        signal that ends the process). Nothing with O_TMPFILE outputs.
 */
TL_API void tl_output_unlink_pending(void);

#ifdef __cplusplus
}
#endif

#endif

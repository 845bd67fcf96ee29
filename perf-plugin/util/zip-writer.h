/* SPDX-License-Identifier: MIT */
/* A ZIP writer (PKWARE APPNOTE 6.3: local headers, deflate or stored data,
 * central directory, ZIP64 where a size, an offset or the member count needs
 * it) for `tlreplay pack`: archives that Python's zipfile and unzip read.
 * Members stream through bounded buffers (a few MB whatever their size);
 * an archive that needs no ZIP64 record has none. */
#ifndef TLREPLAY_ZIP_WRITER_H
#define TLREPLAY_ZIP_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct zipw;

/* Start an archive written to @f (owned by the caller, left open) from its
 * current position. A regular file gets each streamed member's sizes and CRC
 * patched into its local header, and the zero runs of stored members as
 * holes (so it must hold nothing past that position: a new or truncated
 * file); anything else (a pipe) gets them in a data descriptor after the
 * member. */
struct zipw *zipw_new(FILE *f);
/* Add a member from memory; @mode is its Unix permission bits (0644, 0755).
 * Returns 0 or -errno (-errno of the failed write, -ENOMEM). */
int zipw_add(struct zipw *z, const char *name, const void *data, size_t len, unsigned mode);
/* Add a member from bytes 0..@size of @fd (read with pread; the caller
 * checked its size). Returns 0, -ENODATA when @fd ends before @size bytes,
 * or -errno. */
int zipw_add_fd(struct zipw *z, const char *name, int fd, uint64_t size, unsigned mode);
/* Write the central directory and free @z. Returns 0 or -errno. */
int zipw_finish(struct zipw *z);
/* Free @z without finishing (the archive is incomplete). NULL ok. */
void zipw_abort(struct zipw *z);

/* For tests: sizes and offsets from @size_limit on, and member counts from
 * @count_limit on, take ZIP64 records (the format's limits, 0xFFFFFFFF and
 * 0xFFFF, by default), so that small archives exercise them. */
void zipw_set_zip64_limits(struct zipw *z, uint64_t size_limit, uint64_t count_limit);

#endif

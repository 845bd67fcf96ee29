/* SPDX-License-Identifier: MIT */
/* A minimal ZIP writer (PKWARE APPNOTE 6.3: local headers, deflate or
 * stored data, central directory) for `tlreplay pack`: small archives that
 * Python's zipfile and unzip read. No ZIP64: members and the archive stay
 * under 4 GiB, which is checked. */
#ifndef TLREPLAY_ZIP_WRITER_H
#define TLREPLAY_ZIP_WRITER_H

#include <stddef.h>
#include <stdio.h>

struct zipw;

/* Start an archive written to @f (owned by the caller, left open). */
struct zipw *zipw_new(FILE *f);
/* Add a member; @mode is its Unix permission bits (0644, 0755).
 * Returns 0 or -errno (-EFBIG past the ZIP32 limits, -EIO on a write error). */
int zipw_add(struct zipw *z, const char *name, const void *data, size_t len, unsigned mode);
/* Write the central directory and free @z. Returns 0 or -errno. */
int zipw_finish(struct zipw *z);
/* Free @z without finishing (the archive is incomplete). NULL ok. */
void zipw_abort(struct zipw *z);

#endif

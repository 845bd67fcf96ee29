/* SPDX-License-Identifier: MIT */
/* Reading a trace file (plain or gzip) into memory. */
#ifndef TL_FILE_READ_H
#define TL_FILE_READ_H

#include "util.h"

struct tl_text {
	const char *p;
	size_t len;
	size_t map_len;	/* bytes to munmap */
	bool is_file;	/* p maps the file itself (pages can be dropped and refaulted) */
};

/* Read @path (gzip detected from the magic bytes). Errors: -ENOENT, -EACCES,
 * -EISDIR, -ENODATA (empty), -EBADMSG (corrupt/truncated gzip), -ENOMEM. */
int tl_text_read(const char *path, struct tl_text *out);
/* Same from a memory buffer (copied). */
int tl_text_from_mem(const void *buf, size_t len, const char *label, struct tl_text *out);
/* Release resident pages of [from, to) of a file-backed text (no-op otherwise). */
void tl_text_drop_pages(const struct tl_text *t, size_t from, size_t to);
void tl_text_free(struct tl_text *t);

#endif

/* SPDX-License-Identifier: MIT */
/* The recorder's side of the database (docs/kernel-replay.md): blobs named
 * by their SHA-256 under blobs/, and one JSON file per recorded launch under
 * launches/, each installed by rename so that a crash or a full disk leaves
 * whole files or none. `tlreplay record` gathers the launches into
 * index.json when the program ends. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec.h"

const char *rec_db_dir(void)
{
	const char *d = getenv("TLREPLAY_RECORD_DB");

	return d && *d ? d : NULL;
}

static int ensure_dir(const char *sub, char *path, size_t len)
{
	if (!rec_db_dir())
		return -EINVAL;
	snprintf(path, len, "%s/%s", rec_db_dir(), sub);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

struct rec_blob {
	struct rec_sha256 sha;
	int fd;		/* -1: hash only */
	int err;
	char tmp[4096];
};

struct rec_blob *rec_blob_begin(bool write)
{
	struct rec_blob *b = calloc(1, sizeof(*b));
	char dir[4000];

	if (!b)
		return NULL;
	rec_sha256_init(&b->sha);
	b->fd = -1;
	if (!write)
		return b;
	b->err = ensure_dir("blobs", dir, sizeof(dir));
	if (!b->err) {
		snprintf(b->tmp, sizeof(b->tmp), "%s/.tmp-XXXXXX", dir);
		b->fd = mkstemp(b->tmp);
		if (b->fd < 0)
			b->err = -errno;
	}
	return b;
}

int rec_blob_add(struct rec_blob *b, const void *data, size_t len)
{
	rec_sha256_add(&b->sha, data, len);
	if (!b->err && b->fd >= 0)
		b->err = write_all(b->fd, data, len);
	return b->err;
}

int rec_blob_end(struct rec_blob *b, char hex[65])
{
	char path[4200];
	int err = b->err;

	rec_sha256_hex(&b->sha, hex);
	if (b->fd >= 0) {
		if (!err && (fchmod(b->fd, 0644) || fsync(b->fd)))
			err = -errno;
		if (close(b->fd) && !err)
			err = -errno;
		snprintf(path, sizeof(path), "%s/blobs/%s", rec_db_dir() ? rec_db_dir() : ".", hex);
		/* the same contents may be there already (weights, memory the
		 * kernel left alone): keep the one stored */
		if (err || !access(path, F_OK))
			unlink(b->tmp);
		else if (rename(b->tmp, path)) {
			err = -errno;
			unlink(b->tmp);
		}
	}
	free(b);
	return err;
}

int rec_db_blob(const void *data, size_t len, char hex[65])
{
	struct rec_blob *b = rec_blob_begin(true);

	if (!b)
		return -ENOMEM;
	rec_blob_add(b, data, len);
	return rec_blob_end(b, hex);
}

int rec_db_launch(const char *json, unsigned seq)
{
	char dir[4000], tmp[4200], path[4200];
	int fd, err = ensure_dir("launches", dir, sizeof(dir));

	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%d-%u.json", dir, (int)getpid(), seq);
	snprintf(tmp, sizeof(tmp), "%s/.tmp-XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	err = write_all(fd, json, strlen(json));
	if (!err && fchmod(fd, 0644))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

void rec_str_add(struct rec_str *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = (b->cap + (size_t)n + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
}

void rec_str_json(struct rec_str *b, const char *s)
{
	rec_str_add(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			rec_str_add(b, "\\%c", c);
		else if (c < 0x20)
			rec_str_add(b, "\\u%04x", c);
		else
			rec_str_add(b, "%c", c);
	}
	rec_str_add(b, "\"");
}

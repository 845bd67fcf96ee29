/* SPDX-License-Identifier: MIT */
/* The recorder's side of the database (docs/kernel-replay.md): blobs named
 * by their SHA-256 under blobs/, and one JSON file per recorded launch under
 * launches/, each written unnamed (O_TMPFILE) and linked into place when
 * whole, so that a crash, a kill or a full disk leaves whole files or none,
 * with the mode a new file gets from the program's umask. Where the file
 * system has no O_TMPFILE, a hidden name linked into place. This is a small
 * copy of what core/src/base/output_file.c does for libtlreplay: the recorder
 * runs inside the user's program and links nothing of libtlreplay.
 * `tlreplay record` gathers the launches into index.json when the program
 * ends. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
	if (mkdir(path, 0777) && errno != EEXIST)
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

/* ---- files that appear whole */

static pthread_once_t mode_once = PTHREAD_ONCE_INIT;
static mode_t new_mode = 0644;

static void mode_read(void)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");
	unsigned m;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Umask: %o", &m) == 1) {
			new_mode = 0666 & ~(mode_t)m;
			break;
		}
	if (f)
		fclose(f);
}

/* An unnamed file in @dir, or (no O_TMPFILE there) @tmp made there; -errno. */
static int out_open(const char *dir, char tmp[4200])
{
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

	tmp[0] = 0;
	if (fd >= 0)
		return fd;
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	snprintf(tmp, 4200, "%s/.tmp-XXXXXX", dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Give the file of @fd the mode of a new file and @path, unless a file has
 * that name already (then it is left as it is: -EEXIST); closes @fd. */
static int out_commit(int fd, const char *tmp, const char *path, int err)
{
	char proc[64];

	pthread_once(&mode_once, mode_read);
	if (!err && (fchmod(fd, new_mode) || fsync(fd)))
		err = -errno;
	if (!err && tmp[0])
		err = link(tmp, path) ? -errno : 0;	/* link, not rename: never over a file */
	else if (!err) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		err = linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) ? -errno : 0;
	}
	if (tmp[0])
		unlink(tmp);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

struct rec_blob {
	struct kdb_sha256 sha;
	int fd;		/* -1: hash only */
	int err;
	char tmp[4200];
};

struct rec_blob *rec_blob_begin(bool write)
{
	struct rec_blob *b = calloc(1, sizeof(*b));
	char dir[4000];

	if (!b)
		return NULL;
	kdb_sha256_init(&b->sha);
	b->fd = -1;
	if (!write)
		return b;
	b->err = ensure_dir("blobs", dir, sizeof(dir));
	if (!b->err) {
		b->fd = out_open(dir, b->tmp);
		if (b->fd < 0) {
			b->err = b->fd;
			b->fd = -1;
		}
	}
	return b;
}

int rec_blob_add(struct rec_blob *b, const void *data, size_t len)
{
	kdb_sha256_add(&b->sha, data, len);
	if (!b->err && b->fd >= 0)
		b->err = write_all(b->fd, data, len);
	return b->err;
}

int rec_blob_end(struct rec_blob *b, char hex[65])
{
	char path[4200];
	int err = b->err;

	kdb_sha256_hex(&b->sha, hex);
	if (b->fd >= 0) {
		snprintf(path, sizeof(path), "%s/blobs/%s", rec_db_dir() ? rec_db_dir() : ".", hex);
		/* the same contents may be there already (weights, memory the
		 * kernel left alone): keep the one stored */
		err = out_commit(b->fd, b->tmp, path, err);
		if (err == -EEXIST)
			err = 0;
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
	fd = out_open(dir, tmp);
	if (fd < 0)
		return fd;
	return out_commit(fd, tmp, path, write_all(fd, json, strlen(json)));
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

/* SPDX-License-Identifier: MIT */
/* The identity of a trace file in results records: {"path", "size", "sig"}.
 *
 * sig is CRC-32 (zlib's, the one Python's zlib.crc32 computes) of the size
 * as 8 little-endian bytes followed by the first MiB, then the same CRC
 * continued over the last MiB, printed as two 8-digit hex numbers. Reading
 * at most 2 MiB keeps it instant on multi-GB traces; the formula is in
 * docs/results-store.md so that scripts can compute it too. (tl_hash_bytes
 * would do as a hash, but it is free to change and is not reproducible
 * outside C; a stored sig must stay valid.) */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cjson/cJSON.h>
#include <tlreplay/store.h>

#include "base/base_internal.h"
#include "results/results_internal.h"

#define SIG_SPAN (1u << 20)

static int read_at(int fd, unsigned char *buf, size_t n, off_t off)
{
	while (n) {
		ssize_t r = pread(fd, buf, n, off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		buf += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

/* Absolute path without symlinks when it exists, else cwd + path. */
static char *absolute(const char *path)
{
	char *p = realpath(path, NULL), cwd[PATH_MAX];

	if (p || path[0] == '/')
		return p ? p : strdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	if (asprintf(&p, "%s/%s", cwd, path) < 0)
		return NULL;
	return p;
}

int tl_store_trace_id(const char *path, cJSON **out)
{
	unsigned char *buf = NULL, size8[8];
	char sig[17], *abs = NULL;
	struct stat st;
	uint64_t size;
	uLong h1, h2;
	size_t span;
	cJSON *id = NULL;
	int fd = -1, err, i;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tl_err(-errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		err = tl_err(-errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = tl_err(-EINVAL, "%s: not a regular file", path);
		goto out;
	}
	size = (uint64_t)st.st_size;
	span = size < SIG_SPAN ? (size_t)size : SIG_SPAN;
	buf = malloc(span + 1);
	err = -ENOMEM;
	if (!buf)
		goto out;
	for (i = 0; i < 8; i++)
		size8[i] = (unsigned char)(size >> (8 * i));
	h1 = crc32(0L, size8, 8);
	err = read_at(fd, buf, span, 0);
	if (err)
		goto out;
	h1 = crc32(h1, buf, (uInt)span);
	err = read_at(fd, buf, span, (off_t)(size - span));
	if (err)
		goto out;
	h2 = crc32(h1, buf, (uInt)span);
	snprintf(sig, sizeof(sig), "%08lx%08lx", (unsigned long)h1, (unsigned long)h2);
	abs = absolute(path);
	id = cJSON_CreateObject();
	err = -ENOMEM;
	if (!abs || !id || !cJSON_AddStringToObject(id, "path", abs) ||
	    !cJSON_AddNumberToObject(id, "size", (double)size) ||
	    !cJSON_AddStringToObject(id, "sig", sig))
		goto out;
	*out = id;
	id = NULL;
	err = 0;
out:
	if (err == -ENOMEM)
		err = tl_err(err, "out of memory");
	else if (err && buf)
		err = tl_err(err, "%s: read error: %s", path, strerror(-err));
	cJSON_Delete(id);
	free(abs);
	free(buf);
	close(fd);
	return err;
}

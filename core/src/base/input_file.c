/* SPDX-License-Identifier: MIT */
/* Small inputs read whole within a limit (tlreplay/input.h): what is a file
 * of KB to MB (IR, schemas, GPU specs, summaries, a kernel record database's
 * index) must not become a read of /dev/zero, a hang on a FIFO or a copy of
 * a gzip bomb. Which input takes which flags, and why, is said where each is
 * read; docs/limits.md lists them. Traces go through file_read.c instead. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <tlreplay/input.h>

#include "base/base_internal.h"

uint64_t tl_input_max(void)
{
	const char *s = getenv("TLREPLAY_MAX_JSON");
	uint64_t v;

	if (!s || !*s)
		return TL_INPUT_MAX_DEFAULT;
	if (tl_parse_size(s, &v)) {
		tl_log(TL_LOG_WARN, "TLREPLAY_MAX_JSON='%s' is not a size (like 1G or 64M); using 1 GiB", s);
		return TL_INPUT_MAX_DEFAULT;
	}
	return v ? v : UINT64_MAX;
}

const char *tl_size_str(char *b, size_t n, uint64_t v)
{
	static const char *const unit[] = { "TiB", "GiB", "MiB", "KiB" };
	unsigned i;

	for (i = 0; i < 4; i++) {
		uint64_t u = 1ull << (10 * (4 - i));

		if (v >= u && v % u == 0) {
			snprintf(b, n, "%llu %s", (unsigned long long)(v / u), unit[i]);
			return b;
		}
	}
	snprintf(b, n, "%llu bytes", (unsigned long long)v);
	return b;
}

/* @env: the limit is tl_input_max()'s, which the user can move. */
static int over(const char *path, const char *what, const char *how, uint64_t max, bool env)
{
	char b[48];

	return tl_err(-EFBIG, "%s: %s more than %s, the limit for %s%s", path, how, tl_size_str(b, sizeof(b), max),
		      what, env ? " (TLREPLAY_MAX_JSON sets it)" : "");
}

static const char *kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
	       : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* Grow *@p (of *@cap bytes) to hold more, never past @lim + 2 bytes (room
 * to see one byte over the limit, and the NUL). -EFBIG when it is there. */
static int grow(char **p, size_t *cap, size_t lim)
{
	size_t n = *cap < lim / 2 ? 2 * *cap : lim + 2;
	char *g;

	if (*cap >= lim + 2)
		return -EFBIG;
	g = realloc(*p, n);
	if (!g)
		return -ENOMEM;
	*p = g;
	*cap = n;
	return 0;
}

/* gzip @in into *@out, at most @lim bytes. Concatenated members are read
 * on (as gzip -d does); what follows the last one is ignored, as zlib's
 * gzread does. */
static int inflate_all(const char *path, const char *what, const unsigned char *in, size_t len, size_t lim,
		       bool env, char **out, size_t *olen)
{
	z_stream zs = { 0 };
	size_t cap = len < lim / 8 ? 4 * len + 65536 : lim + 2, used = 0, pos = 0;
	char *o = NULL;
	int r, err = 0;

	if (cap > lim + 2)
		cap = lim + 2;
	o = malloc(cap);
	if (!o || inflateInit2(&zs, 15 + 16) != Z_OK) {
		free(o);
		return tl_err(-ENOMEM, "%s: out of memory", path);
	}
	for (;;) {
		size_t before;

		if (!zs.avail_in && pos < len) {
			zs.next_in = (unsigned char *)in + pos;
			zs.avail_in = len - pos > UINT_MAX ? UINT_MAX : (uInt)(len - pos);
			pos += zs.avail_in;
		}
		if (used + 1 >= cap && (err = grow(&o, &cap, lim))) {
			err = err == -EFBIG ? over(path, what, "inflates to", lim, env) : tl_err(err, "%s: out of memory", path);
			goto out;
		}
		before = cap - 1 - used > UINT_MAX ? UINT_MAX : cap - 1 - used;
		zs.next_out = (unsigned char *)o + used;
		zs.avail_out = (uInt)before;
		r = inflate(&zs, Z_NO_FLUSH);
		used += before - zs.avail_out;
		if (used > lim) {
			err = over(path, what, "inflates to", lim, env);
			goto out;
		}
		if (r == Z_STREAM_END) {
			size_t at = (size_t)(zs.next_in - in);	/* next_in walks through @in */

			if (len - at < 2 || in[at] != 0x1f || in[at + 1] != 0x8b)
				break;
			inflateReset(&zs);
			continue;
		}
		if (r == Z_BUF_ERROR && zs.avail_out && !zs.avail_in && pos == len) {
			err = tl_err(-EBADMSG, "%s: corrupt or truncated gzip (it ends within the data)", path);
			goto out;
		}
		if (r != Z_OK && r != Z_BUF_ERROR) {
			err = r == Z_MEM_ERROR ? tl_err(-ENOMEM, "%s: out of memory", path)
					       : tl_err(-EBADMSG, "%s: corrupt gzip: %s", path, zs.msg ? zs.msg : "bad data");
			goto out;
		}
	}
	o[used] = 0;
	*out = o;
	*olen = used;
	o = NULL;
out:
	inflateEnd(&zs);
	free(o);
	return err;
}

int tl_input_read(const char *path, const char *what, unsigned flags, uint64_t max, char **buf, size_t *len)
{
	/* a FIFO is opened without waiting for a writer unless it may be read:
	 * one that must be refused would hang open() */
	int oflags = O_RDONLY | O_CLOEXEC | (flags & TL_INPUT_PIPE ? 0 : O_NONBLOCK) |
		     (flags & TL_INPUT_PART ? O_NOFOLLOW : 0);
	size_t lim, cap, used = 0;
	bool env = !max;
	struct stat st;
	char *p = NULL;
	int fd, err = 0;

	*buf = NULL;
	*len = 0;
	if (env)
		max = tl_input_max();
	lim = max > SIZE_MAX - 2 ? SIZE_MAX - 2 : (size_t)max;
	fd = open(path, oflags);
	if (fd < 0) {
		if (errno == ELOOP && (flags & TL_INPUT_PART))
			return tl_err(-EINVAL, "%s: a symbolic link, refused: %s must be a regular file in its directory",
				      path, what);
		return tl_err(-errno, "%s: cannot open: %s", path, strerror(errno));
	}
	if (fstat(fd, &st)) {
		err = tl_err(-errno, "%s: cannot stat: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) && !((S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) && (flags & TL_INPUT_PIPE))) {
		err = tl_err(-EINVAL, "%s: %s, not %s (read from a regular file%s)", path, kind(st.st_mode), what,
			     flags & TL_INPUT_PIPE ? " or a pipe" : "");
		goto out;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > lim) {
		err = over(path, what, "holds", lim, env);
		goto out;
	}
	/* a regular file's size, and what it may have grown by since */
	cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 2 : 65536;
	if (cap > lim + 2)
		cap = lim + 2;
	p = malloc(cap);
	if (!p) {
		err = tl_err(-ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (used + 1 >= cap && (err = grow(&p, &cap, lim))) {
			err = err == -EFBIG ? over(path, what, "holds", lim, env) : tl_err(err, "%s: out of memory", path);
			goto out;
		}
		r = read(fd, p + used, cap - 1 - used);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = tl_err(-errno, "%s: read failed: %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		used += (size_t)r;
		if (used > lim) {
			err = over(path, what, "holds", lim, env);
			goto out;
		}
	}
	if ((flags & TL_INPUT_GUNZIP) && used >= 2 && (unsigned char)p[0] == 0x1f && (unsigned char)p[1] == 0x8b) {
		char *text = NULL;

		err = inflate_all(path, what, (unsigned char *)p, used, lim, env, &text, &used);
		if (err)
			goto out;
		free(p);
		p = text;
	}
	p[used] = 0;
	*buf = p;
	*len = used;
	p = NULL;
out:
	free(p);
	close(fd);
	return err;
}

/* SPDX-License-Identifier: MIT */
/* Bring a trace's JSON text into memory: a read-only private mapping of a
 * plain file (no copy; pages can be dropped once scanned and fault back in
 * from the page cache when an event's args are read later), or gzip data
 * inflated by gzip_inflate.c. Every input is held against the size limits
 * (tl_text_limits) before any work. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base_internal.h"

/* ------------------------------------------------------------------ limits */

/* "8G", "500M", "1.5GB", "2GiB", "123" (bytes); "0", "none" and "unlimited"
 * mean no limit (0). */
int tl_parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v, mul = 1;

	if (!s || !*s)
		return -EINVAL;
	if (!strcmp(s, "none") || !strcmp(s, "unlimited")) {
		*out = 0;
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0 || v != v)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mul = 1024.0; end++; break;
	case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
	case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: break;
	}
	if (mul > 1 && *end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v * mul >= 1.8e19)
		return -EINVAL;
	*out = (uint64_t)(v * mul);
	return 0;
}

static uint64_t env_size(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);
	uint64_t v;

	if (!s || !*s)
		return dflt;
	if (tl_parse_size(s, &v)) {
		tl_log(TL_LOG_WARN, "%s='%s' is not a size (like 8G or 500M); using the default", name, s);
		return dflt;
	}
	return v;
}

void tl_text_limits_default(struct tl_text_limits *l)
{
	long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);
	uint64_t ram = pages > 0 && pg > 0 ? (uint64_t)pages * (uint64_t)pg : 16ull << 30;
	uint64_t ratio = env_size("TLREPLAY_MAX_RATIO", 200);

	memset(l, 0, sizeof(*l));
	/* The event table takes about 0.6 bytes per byte of text (the text
	 * itself stays in the page cache): 1.5x RAM is what analyses fit in. */
	l->max_text = env_size("TLREPLAY_MAX_TEXT", ram + ram / 2);
	l->max_ratio = ratio > UINT32_MAX ? UINT32_MAX : (unsigned)ratio;
	l->spill_min = env_size("TLREPLAY_SPILL_MIN", 64u << 20);
}

/* ------------------------------------------------------------------ reading */

static bool is_gzip(const unsigned char *p, size_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

int tl_text_from_mem(const void *buf, size_t len, const char *label, struct tl_text *out)
{
	struct tl_text_limits l;
	char *copy;
	int err;

	tl_text_limits_default(&l);
	memset(out, 0, sizeof(*out));
	if (len == 0)
		return tl_err(-ENODATA, "%s: empty file", label);
	if (is_gzip(buf, len))
		return tl_gzip_inflate(label, buf, len, &l, out);
	err = tl_text_over_limits(label, &l, len, 0, TL_SIZE_PLAIN);
	if (err)
		return err;
	copy = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		    -1, 0);
	if (copy == MAP_FAILED)
		return tl_err(-ENOMEM, "%s: out of memory", label);
	memcpy(copy, buf, len);
	out->p = copy;
	out->len = len;
	out->map_len = len;
	return 0;
}

/* A pipe or a character device: copied into an unlinked temporary file, so
 * that it is read like a regular one, never held in memory whole. Plain
 * text is held to the size limit as it comes in (gzip is judged by what it
 * inflates to). Returns the new descriptor or -errno. */
static int pipe_to_file(int in, const char *label, const struct tl_text_limits *l)
{
	const char *dir = tl_tmp_dir(l);
	size_t cap = 1u << 20;
	uint64_t total = 0;
	bool gz = false;
	char *buf = NULL;
	int fd, err = 0;

	fd = tl_tmpfile(label, dir);
	if (fd < 0)
		return fd;
	buf = malloc(cap);
	if (!buf) {
		err = tl_err(-ENOMEM, "%s: out of memory", label);
		goto out;
	}
	for (;;) {
		ssize_t r = read(in, buf, cap);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = tl_err(-errno, "%s: read failed: %s", label, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		if (!total)
			gz = is_gzip((unsigned char *)buf, (size_t)r);
		total += (uint64_t)r;
		if (!gz && (err = tl_text_over_limits(label, l, total, 0, TL_SIZE_PLAIN)))
			goto out;
		err = tl_write_all(fd, buf, (size_t)r);
		if (err) {
			err = err == -ENOSPC || err == -EDQUOT
				? tl_err(err, "%s: no room in %s for a copy of the input (%.1f MB so far; set "
					 "TMPDIR to a file system with room)", label, dir,
					 (double)total / (1 << 20))
				: tl_err(err, "%s: copying the input to %s: %s", label, dir, strerror(-err));
			goto out;
		}
	}
out:
	free(buf);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* @fd is a regular file of @size bytes. */
static int read_regular(int fd, size_t size, const char *label, const struct tl_text_limits *l,
			struct tl_text *out)
{
	void *m;
	int err;

	if (size == 0)
		return tl_err(-ENODATA, "%s: empty file", label);
	m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return tl_err(-errno, "%s: cannot map: %s", label, strerror(errno));
	madvise(m, size, MADV_SEQUENTIAL);
	if (is_gzip(m, size)) {
		err = tl_gzip_inflate(label, m, size, l, out);
		munmap(m, size);
		return err;
	}
	err = tl_text_over_limits(label, l, size, 0, TL_SIZE_PLAIN);
	if (err) {
		munmap(m, size);
		return err;
	}
	out->p = m;
	out->len = size;
	out->map_len = size;
	out->is_file = true;
	return 0;
}

int tl_text_read_ex(const char *path, const struct tl_text_limits *lim, struct tl_text *out)
{
	struct tl_text_limits dflt;
	struct stat st;
	bool copied = false;
	int fd, err = 0;

	memset(out, 0, sizeof(*out));
	if (!lim) {
		tl_text_limits_default(&dflt);
		lim = &dflt;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == EISDIR)
			return tl_err(-EISDIR, "%s: is a directory, not a trace file", path);
		return tl_err(-e, "%s: cannot open: %s", path, strerror(e));
	}
	if (fstat(fd, &st)) {
		err = tl_err(-errno, "%s: cannot stat: %s", path, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		err = tl_err(-EISDIR, "%s: is a directory, not a trace file", path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		int copy = pipe_to_file(fd, path, lim);

		copied = true;

		if (copy < 0) {
			err = copy;
			goto out;
		}
		close(fd);
		fd = copy;
		if (fstat(fd, &st)) {
			err = tl_err(-errno, "%s: cannot stat its copy: %s", path, strerror(errno));
			goto out;
		}
	}
	err = read_regular(fd, (size_t)st.st_size, path, lim, out);
	if (!err && !copied)
		out->id = (struct tl_file_id){ .valid = true, .dev = st.st_dev, .ino = st.st_ino,
					       .size = st.st_size, .mtime = st.st_mtim };
out:
	close(fd);
	return err;
}

int tl_file_id_check(const struct tl_file_id *id, const char *path)
{
	struct stat st;

	if (!id->valid || stat(path, &st) || st.st_dev != id->dev || st.st_ino != id->ino)
		return 0;
	if (st.st_size != id->size)
		return tl_err(-ESTALE, "%s: changed while it was read (now %lld bytes, %lld when loaded): "
			      "another process truncated or rewrote it", path, (long long)st.st_size,
			      (long long)id->size);
	if (st.st_mtim.tv_sec != id->mtime.tv_sec || st.st_mtim.tv_nsec != id->mtime.tv_nsec)
		return tl_err(-ESTALE, "%s: changed while it was read (modified since it was loaded): "
			      "another process rewrote it", path);
	return 0;
}

void tl_text_drop_pages(const struct tl_text *t, size_t from, size_t to)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t a, b;

	if (!t->is_file || pg <= 0)
		return;
	a = (from + (size_t)pg - 1) & ~((size_t)pg - 1);
	b = to & ~((size_t)pg - 1);
	if (b > a)
		madvise((char *)t->p + a, b - a, MADV_DONTNEED);
}

void tl_text_free(struct tl_text *t)
{
	if (t->p && t->map_len)
		munmap((void *)t->p, t->map_len);
	memset(t, 0, sizeof(*t));
}

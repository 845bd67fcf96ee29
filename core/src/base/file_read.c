/* SPDX-License-Identifier: MIT */
/* Bring a trace's JSON text into memory: a read-only private mapping of a
 * plain file (no copy; pages can be dropped once scanned and fault back in
 * from the page cache when an event's args are read later), or gzip data
 * inflated with libdeflate into an anonymous mapping sized from the gzip
 * trailer (zlib streams the rare multi-member or >4 GiB file). */
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/base_internal.h"

static void *anon_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Inflate with zlib, growing the output mapping as needed (multi-member and
 * huge files). */
static int inflate_zlib(const char *label, const unsigned char *in, size_t in_len,
			struct tl_text *out)
{
	size_t cap = in_len * 8 + (1u << 20), len = 0;
	char *buf = anon_map(cap);
	z_stream zs;
	int zr, err = 0;

	if (!buf)
		return tl_err(-ENOMEM, "%s: out of memory inflating gzip data", label);
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 32) != Z_OK) {
		munmap(buf, cap);
		return tl_err(-ENOMEM, "%s: cannot initialise zlib", label);
	}
	zs.next_in = (unsigned char *)in;
	for (;;) {
		size_t chunk_in = in_len - (size_t)((const unsigned char *)zs.next_in - in);

		if (cap - len < (1u << 20)) {
			size_t ncap = cap * 2;
			void *nb = mremap(buf, cap, ncap, MREMAP_MAYMOVE);

			if (nb == MAP_FAILED) {
				err = tl_err(-ENOMEM, "%s: out of memory inflating gzip data", label);
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		zs.avail_in = chunk_in > UINT32_MAX ? UINT32_MAX : (uInt)chunk_in;
		zs.next_out = (unsigned char *)buf + len;
		zs.avail_out = (cap - len) > UINT32_MAX ? UINT32_MAX : (uInt)(cap - len);
		{
			uInt before = zs.avail_out;

			zr = inflate(&zs, Z_NO_FLUSH);
			len += before - zs.avail_out;
		}
		if (zr == Z_STREAM_END) {
			size_t used = (size_t)((const unsigned char *)zs.next_in - in);

			/* Another gzip member follows? */
			if (used + 2 <= in_len && in[used] == 0x1f && in[used + 1] == 0x8b) {
				inflateReset(&zs);
				continue;
			}
			break;
		}
		if (zr == Z_BUF_ERROR && zs.avail_in == 0) {
			err = tl_err(-EBADMSG, "%s: truncated gzip data (%zu bytes inflated)", label,
				     len);
			goto out;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			err = tl_err(-EBADMSG, "%s: corrupt gzip data (%s)", label,
				     zs.msg ? zs.msg : "inflate failed");
			goto out;
		}
	}
	out->p = buf;
	out->len = len;
	out->map_len = cap;
	out->is_file = false;
	buf = NULL;
out:
	inflateEnd(&zs);
	if (buf)
		munmap(buf, cap);
	return err;
}

static int inflate_gzip(const char *label, const unsigned char *in, size_t in_len,
			struct tl_text *out)
{
	struct libdeflate_decompressor *d = NULL;
	size_t isize, cap, actual_in = 0, actual_out = 0;
	enum libdeflate_result r;
	char *buf = NULL;
	int err = 0;

	if (in_len < 18)
		return tl_err(-EBADMSG, "%s: truncated gzip data (%zu bytes)", label, in_len);
	isize = (size_t)in[in_len - 4] | (size_t)in[in_len - 3] << 8 |
		(size_t)in[in_len - 2] << 16 | (size_t)in[in_len - 1] << 24;
	/* The trailer holds the size mod 2^32 (of the last member only); a value
	 * that cannot be right sends us to the streaming path. */
	if (isize + 1 < in_len / 1100 || in_len > ((size_t)1 << 31))
		return inflate_zlib(label, in, in_len, out);
	cap = isize + 1;
	buf = anon_map(cap);
	d = libdeflate_alloc_decompressor();
	if (!buf || !d) {
		err = tl_err(-ENOMEM, "%s: out of memory inflating gzip data", label);
		goto out;
	}
	r = libdeflate_gzip_decompress_ex(d, in, in_len, buf, cap, &actual_in, &actual_out);
	if (r == LIBDEFLATE_SUCCESS && actual_in == in_len) {
		out->p = buf;
		out->len = actual_out;
		out->map_len = cap;
		out->is_file = false;
		buf = NULL;
		goto out;
	}
	if (r == LIBDEFLATE_BAD_DATA && in_len >= 4) {
		/* Distinguish a cut-off file from a corrupt one for the message. */
		munmap(buf, cap);
		buf = NULL;
		err = inflate_zlib(label, in, in_len, out);
		goto out;
	}
	/* Multi-member stream or a trailer that lies: stream it with zlib. */
	munmap(buf, cap);
	buf = NULL;
	err = inflate_zlib(label, in, in_len, out);
out:
	if (d)
		libdeflate_free_decompressor(d);
	if (buf)
		munmap(buf, cap);
	return err;
}

static int read_all(int fd, const char *label, unsigned char **out, size_t *out_len)
{
	size_t cap = 1 << 20, len = 0;
	unsigned char *buf = malloc(cap);

	if (!buf)
		return tl_err(-ENOMEM, "%s: out of memory", label);
	for (;;) {
		ssize_t r;

		if (len == cap) {
			unsigned char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return tl_err(-ENOMEM, "%s: out of memory", label);
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			return tl_err(-e, "%s: read failed: %s", label, strerror(e));
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

static bool is_gzip(const unsigned char *p, size_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

int tl_text_from_mem(const void *buf, size_t len, const char *label, struct tl_text *out)
{
	char *copy;

	memset(out, 0, sizeof(*out));
	if (len == 0)
		return tl_err(-ENODATA, "%s: empty file", label);
	if (is_gzip(buf, len))
		return inflate_gzip(label, buf, len, out);
	copy = anon_map(len);
	if (!copy)
		return tl_err(-ENOMEM, "%s: out of memory", label);
	memcpy(copy, buf, len);
	out->p = copy;
	out->len = len;
	out->map_len = len;
	return 0;
}

int tl_text_read(const char *path, struct tl_text *out)
{
	const char *label = path;
	struct stat st;
	int fd, err = 0;

	memset(out, 0, sizeof(*out));
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
	if (S_ISREG(st.st_mode)) {
		void *m;

		if (st.st_size == 0) {
			err = tl_err(-ENODATA, "%s: empty file", path);
			goto out;
		}
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			err = tl_err(-errno, "%s: cannot map: %s", path, strerror(errno));
			goto out;
		}
		if (is_gzip(m, (size_t)st.st_size)) {
			madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
			err = inflate_gzip(label, m, (size_t)st.st_size, out);
			munmap(m, (size_t)st.st_size);
			goto out;
		}
		madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
		out->p = m;
		out->len = (size_t)st.st_size;
		out->map_len = (size_t)st.st_size;
		out->is_file = true;
		goto out;
	}
	/* A pipe or character device: read it all. */
	{
		unsigned char *buf = NULL;
		size_t len = 0;

		err = read_all(fd, label, &buf, &len);
		if (!err) {
			err = tl_text_from_mem(buf, len, label, out);
			free(buf);
		}
	}
out:
	close(fd);
	return err;
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

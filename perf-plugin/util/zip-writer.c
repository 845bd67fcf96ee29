/* SPDX-License-Identifier: MIT */
/* ZIP writer for tlreplay pack (zip-writer.h). Numbers are little-endian;
 * times are DOS local time.
 *
 * A member of up to CHUNK bytes is deflated whole at level 9 and stored when
 * that is not smaller, as before members streamed (small packs come out
 * byte for byte as they did). A larger one is judged by its first CHUNK
 * (deflated when that saves a tenth; memory dumps of random-looking numbers
 * do not, and deflating gigabytes of them for nothing takes minutes) and
 * streamed through zlib in CHUNK pieces, its CRC computed on the way. Its
 * sizes are known only at its end: on a regular file the local header is
 * patched in place (complete local headers: streaming readers such as
 * Java's ZipInputStream cannot read a stored member whose size comes after
 * it), elsewhere (a pipe) a data descriptor follows the member. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "util/zip-writer.h"

#define CHUNK (1u << 20)
/* deflate's output for CHUNK bytes in one call, with room to spare (zlib's
 * worst case is a few hundred bytes over) */
#define OUTCAP (CHUNK + CHUNK / 4)
/* level for large file members: memory dumps of gigabytes; level 9 runs at
 * 10-20 MB/s on them for a few percent */
#define LEVEL_LARGE_FILE 1

struct member {
	char *name;
	uint64_t csize, usize, offset;
	uint32_t crc;
	uint16_t method, flags;
	bool zip64_local;		/* its local header has the ZIP64 extra */
	unsigned mode;
};

struct zipw {
	FILE *f;
	bool seekable;			/* a regular file: patch local headers */
	off_t base;			/* where the archive starts in f */
	uint64_t off;			/* bytes of the archive so far */
	uint64_t lim, count_lim;	/* ZIP64 from these on */
	unsigned char *in, *obuf;	/* CHUNK and OUTCAP bytes, made on first use */
	struct member *m;
	size_t n, cap;
	uint16_t dos_time, dos_date;
};

/* where a member's bytes come from */
struct source {
	const unsigned char *mem;	/* or */
	int fd;
};

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v & 0xff);
	p[1] = (unsigned char)((v >> 8) & 0xff);
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* a 32-bit field: the value, or the ZIP64 marker when it does not fit */
static uint32_t field32(const struct zipw *z, uint64_t v)
{
	return v >= z->lim ? 0xffffffffu : (uint32_t)v;
}

static int out(struct zipw *z, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, z->f) != n)
		return errno ? -errno : -EIO;
	z->off += n;
	return 0;
}

static bool all_zero(const unsigned char *p, size_t n)
{
	return !n || (!p[0] && !memcmp(p, p + 1, n - 1));
}

/* @n zero bytes: a hole in a regular file (no disk blocks for the zero
 * pages of a stored memory dump), written elsewhere */
static int zeros(struct zipw *z, const unsigned char *p, size_t n)
{
	if (!z->seekable || fseeko(z->f, (off_t)n, SEEK_CUR))
		return out(z, p, n);
	z->off += n;
	return 0;
}

struct zipw *zipw_new(FILE *f)
{
	struct zipw *z = calloc(1, sizeof(*z));
	time_t now = time(NULL);
	struct stat st;
	struct tm tm;

	if (!z)
		return NULL;
	z->f = f;
	z->base = ftello(f);
	z->seekable = z->base >= 0 && !fstat(fileno(f), &st) && S_ISREG(st.st_mode);
	z->lim = 0xffffffffu;
	z->count_lim = 0xffff;
	localtime_r(&now, &tm);
	if (tm.tm_year < 80)
		tm.tm_year = 80;
	z->dos_time = (uint16_t)((tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2));
	z->dos_date = (uint16_t)(((tm.tm_year - 80) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday);
	return z;
}

void zipw_set_zip64_limits(struct zipw *z, uint64_t size_limit, uint64_t count_limit)
{
	z->lim = size_limit;
	z->count_lim = count_limit;
}

/* Bytes @off..@off+@n of @s into *@p: a pointer into the memory, or read
 * into z->in. */
static int src_get(struct zipw *z, const struct source *s, uint64_t off, size_t n, const unsigned char **p)
{
	size_t got = 0;

	if (s->mem) {
		*p = s->mem + off;
		return 0;
	}
	while (got < n) {
		ssize_t r = pread(s->fd, z->in + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -ENODATA;
		got += (size_t)r;
	}
	*p = z->in;
	return 0;
}

/* Raw deflate of @n bytes at @p into z->obuf in one call; *@clen its size. */
static int deflate_once(struct zipw *z, const unsigned char *p, size_t n, int level, size_t *clen)
{
	z_stream s;
	int r;

	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	s.next_in = (Bytef *)(uintptr_t)p;
	s.avail_in = (uInt)n;
	s.next_out = z->obuf;
	s.avail_out = OUTCAP;
	r = deflate(&s, Z_FINISH);
	*clen = s.total_out;
	deflateEnd(&s);
	return r == Z_STREAM_END ? 0 : -EIO;
}

/* The local header of @m (its sizes as they are now: zero until patched
 * for a streamed member), with the ZIP64 extra when @m->zip64_local. */
static int local_header(struct zipw *z, const struct member *m)
{
	unsigned char h[30 + 20];
	size_t nlen = strlen(m->name), hl = 30;
	int err;

	put32(h, 0x04034b50);
	put16(h + 4, m->zip64_local ? 45 : 20);	/* version needed: 4.5 (ZIP64), 2.0 (deflate) */
	put16(h + 6, m->flags);
	put16(h + 8, m->method);
	put16(h + 10, z->dos_time);
	put16(h + 12, z->dos_date);
	put32(h + 14, m->crc);
	put32(h + 18, m->zip64_local ? 0xffffffffu : (uint32_t)m->csize);
	put32(h + 22, m->zip64_local ? 0xffffffffu : (uint32_t)m->usize);
	put16(h + 26, (unsigned)nlen);
	put16(h + 28, m->zip64_local ? 20 : 0);
	if (m->zip64_local) {
		/* both sizes, uncompressed first (APPNOTE 4.5.3) */
		put16(h + 30, 1);
		put16(h + 32, 16);
		put64(h + 34, m->usize);
		put64(h + 42, m->csize);
		hl += 20;
	}
	err = out(z, h, 30);
	if (!err)
		err = out(z, m->name, nlen);
	return err ? err : out(z, h + 30, hl - 30);
}

/* Write @m's CRC and sizes into its local header, then return to the end. */
static int patch_local(struct zipw *z, const struct member *m)
{
	unsigned char b[16];
	off_t at = z->base + (off_t)m->offset;
	size_t nlen = strlen(m->name);

	put32(b, m->crc);
	put32(b + 4, m->zip64_local ? 0xffffffffu : (uint32_t)m->csize);
	put32(b + 8, m->zip64_local ? 0xffffffffu : (uint32_t)m->usize);
	if (fseeko(z->f, at + 14, SEEK_SET) || fwrite(b, 1, 12, z->f) != 12)
		return errno ? -errno : -EIO;
	if (m->zip64_local) {
		put64(b, m->usize);
		put64(b + 8, m->csize);
		if (fseeko(z->f, at + 30 + (off_t)nlen + 4, SEEK_SET) || fwrite(b, 1, 16, z->f) != 16)
			return errno ? -errno : -EIO;
	}
	/* the end may be a hole that no write has reached */
	return fseeko(z->f, z->base + (off_t)z->off, SEEK_SET) ? -errno : 0;
}

/* After a member streamed to an unseekable output: CRC and sizes, 8-byte
 * sizes when its local header has the ZIP64 extra (APPNOTE 4.3.9). */
static int descriptor(struct zipw *z, const struct member *m)
{
	unsigned char d[24];

	put32(d, 0x08074b50);
	put32(d + 4, m->crc);
	if (!m->zip64_local) {
		put32(d + 8, (uint32_t)m->csize);
		put32(d + 12, (uint32_t)m->usize);
		return out(z, d, 16);
	}
	put64(d + 8, m->csize);
	put64(d + 16, m->usize);
	return out(z, d, 24);
}

/* Stream @m's data (m->usize bytes of @src, by m->method) after its local
 * header, then give the header its sizes. */
static int stream(struct zipw *z, struct member *m, const struct source *src, int level)
{
	z_stream s;
	uint64_t off, start;
	int err = 0, r = Z_OK;

	memset(&s, 0, sizeof(s));
	if (m->method == 8 && deflateInit2(&s, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	/* whether the sizes may need 8 bytes is decided before the data */
	m->zip64_local = m->usize >= z->lim || (m->method == 8 && deflateBound(&s, m->usize) >= z->lim);
	if (!z->seekable)
		m->flags |= 0x08;		/* sizes in a data descriptor */
	m->crc = 0;
	m->csize = 0;
	err = local_header(z, m);
	start = z->off;
	m->crc = (uint32_t)crc32(0, Z_NULL, 0);
	for (off = 0; !err && off < m->usize;) {
		size_t n = m->usize - off < CHUNK ? (size_t)(m->usize - off) : CHUNK;
		const unsigned char *p;

		if ((err = src_get(z, src, off, n, &p)))
			break;
		m->crc = (uint32_t)crc32(m->crc, p, (uInt)n);
		off += n;
		if (m->method == 0) {
			err = all_zero(p, n) ? zeros(z, p, n) : out(z, p, n);
			continue;
		}
		s.next_in = (Bytef *)(uintptr_t)p;
		s.avail_in = (uInt)n;
		do {
			s.next_out = z->obuf;
			s.avail_out = OUTCAP;
			r = deflate(&s, off == m->usize ? Z_FINISH : Z_NO_FLUSH);
			err = r == Z_STREAM_ERROR ? -EIO : out(z, z->obuf, OUTCAP - s.avail_out);
		} while (!err && !s.avail_out);
	}
	if (m->method == 8) {
		if (!err && r != Z_STREAM_END)
			err = -EIO;
		deflateEnd(&s);
	}
	if (err)
		return err;
	m->csize = m->method == 8 ? z->off - start : m->usize;
	if (!m->zip64_local && m->csize >= z->lim)
		return -EFBIG;			/* beyond deflateBound(): cannot be */
	return z->seekable ? patch_local(z, m) : descriptor(z, m);
}

/* Add member @name of @len bytes from @src; @level: deflate's for a member
 * over CHUNK bytes. */
static int add_member(struct zipw *z, const char *name, const struct source *src, uint64_t len, unsigned mode,
		      int level)
{
	size_t first = len < CHUNK ? (size_t)len : CHUNK, clen = 0;
	const unsigned char *p = NULL;
	struct member *m;
	int err = 0;

	if (strlen(name) > 0xffff)
		return -ENAMETOOLONG;
	if (z->n == z->cap) {
		size_t ncap = z->cap ? 2 * z->cap : 8;
		struct member *nm = realloc(z->m, ncap * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		z->m = nm;
		z->cap = ncap;
	}
	if (!z->in && !(z->in = malloc(CHUNK)))
		return -ENOMEM;
	if (!z->obuf && !(z->obuf = malloc(OUTCAP)))
		return -ENOMEM;
	m = &z->m[z->n];
	memset(m, 0, sizeof(*m));
	m->name = strdup(name);
	if (!m->name)
		return -ENOMEM;
	m->usize = len;
	m->offset = z->off;
	m->mode = mode;
	m->flags = 0x0800;			/* names are UTF-8 */
	if (first && !(err = src_get(z, src, 0, first, &p)))
		err = deflate_once(z, p, first, len <= CHUNK ? 9 : level, &clen);
	if (!err && len <= CHUNK) {
		m->crc = (uint32_t)crc32(crc32(0, Z_NULL, 0), p, (uInt)first);
		m->method = clen < len ? 8 : 0;
		m->csize = m->method ? clen : len;
		m->zip64_local = m->usize >= z->lim || m->csize >= z->lim;
		err = local_header(z, m);
		if (!err)
			err = out(z, m->method ? z->obuf : p, (size_t)m->csize);
	} else if (!err) {
		m->method = (uint64_t)clen * 10 <= (uint64_t)first * 9 ? 8 : 0;
		err = stream(z, m, src, level);
	}
	if (err) {
		free(m->name);
		return err;
	}
	z->n++;
	return 0;
}

int zipw_add(struct zipw *z, const char *name, const void *data, size_t len, unsigned mode)
{
	struct source s = { .mem = data ? data : (const void *)"", .fd = -1 };

	return add_member(z, name, &s, len, mode, 9);
}

int zipw_add_fd(struct zipw *z, const char *name, int fd, uint64_t size, unsigned mode)
{
	struct source s = { .mem = NULL, .fd = fd };

	return add_member(z, name, &s, size, mode, LEVEL_LARGE_FILE);
}

/* One central directory entry, with the ZIP64 extra holding whichever of
 * the sizes and the offset do not fit (in that order, APPNOTE 4.5.3). */
static int central_entry(struct zipw *z, const struct member *m)
{
	unsigned char h[46], x[4 + 24];
	size_t nlen = strlen(m->name), xl = 0;
	unsigned version;
	int err;

	if (m->usize >= z->lim || m->csize >= z->lim || m->offset >= z->lim) {
		xl = 4;
		if (m->usize >= z->lim)
			put64(x + xl, m->usize), xl += 8;
		if (m->csize >= z->lim)
			put64(x + xl, m->csize), xl += 8;
		if (m->offset >= z->lim)
			put64(x + xl, m->offset), xl += 8;
		put16(x, 1);
		put16(x + 2, (unsigned)(xl - 4));
	}
	version = xl || m->zip64_local ? 45 : 20;
	put32(h, 0x02014b50);
	put16(h + 4, (3 << 8) | version);	/* made by: Unix */
	put16(h + 6, version);
	put16(h + 8, m->flags);
	put16(h + 10, m->method);
	put16(h + 12, z->dos_time);
	put16(h + 14, z->dos_date);
	put32(h + 16, m->crc);
	put32(h + 20, field32(z, m->csize));
	put32(h + 24, field32(z, m->usize));
	put16(h + 28, (unsigned)nlen);
	put16(h + 30, (unsigned)xl);		/* extra */
	put16(h + 32, 0);			/* comment */
	put16(h + 34, 0);			/* disk */
	put16(h + 36, 0);			/* internal attributes */
	put32(h + 38, (uint32_t)(0100000 | (m->mode & 07777)) << 16);	/* regular file */
	put32(h + 42, field32(z, m->offset));
	err = out(z, h, sizeof(h));
	if (!err)
		err = out(z, m->name, nlen);
	if (!err)
		err = out(z, x, xl);
	return err;
}

/* The end records: ZIP64's record and locator when the member count, the
 * directory's size or its offset needs them, then the classic one with
 * markers in the fields that do not fit. */
static int end_records(struct zipw *z, uint64_t cd_start)
{
	uint64_t cd_size = z->off - cd_start, n = z->n;
	unsigned char r[56], l[20], e[22];
	int err = 0;

	if (n >= z->count_lim || cd_size >= z->lim || cd_start >= z->lim) {
		uint64_t at = z->off;

		put32(r, 0x06064b50);
		put64(r + 4, sizeof(r) - 12);	/* the record's size after this field */
		put16(r + 12, (3 << 8) | 45);
		put16(r + 14, 45);
		put32(r + 16, 0);		/* this disk */
		put32(r + 20, 0);		/* the directory's disk */
		put64(r + 24, n);
		put64(r + 32, n);
		put64(r + 40, cd_size);
		put64(r + 48, cd_start);
		put32(l, 0x07064b50);
		put32(l + 4, 0);
		put64(l + 8, at);
		put32(l + 16, 1);		/* disks */
		err = out(z, r, sizeof(r));
		if (!err)
			err = out(z, l, sizeof(l));
	}
	put32(e, 0x06054b50);
	put16(e + 4, 0);
	put16(e + 6, 0);
	put16(e + 8, n >= z->count_lim ? 0xffff : (unsigned)n);
	put16(e + 10, n >= z->count_lim ? 0xffff : (unsigned)n);
	put32(e + 12, field32(z, cd_size));
	put32(e + 16, field32(z, cd_start));
	put16(e + 20, 0);
	return err ? err : out(z, e, sizeof(e));
}

int zipw_finish(struct zipw *z)
{
	uint64_t cd_start = z->off;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < z->n; i++)
		err = central_entry(z, &z->m[i]);
	if (!err)
		err = end_records(z, cd_start);
	zipw_abort(z);
	return err;
}

void zipw_abort(struct zipw *z)
{
	size_t i;

	if (!z)
		return;
	for (i = 0; i < z->n; i++)
		free(z->m[i].name);
	free(z->m);
	free(z->in);
	free(z->obuf);
	free(z);
}

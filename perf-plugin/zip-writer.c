/* SPDX-License-Identifier: MIT */
/* ZIP writer for tlreplay pack (zip-writer.h). Numbers are little-endian;
 * times are DOS local time. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "zip-writer.h"

struct member {
	char *name;
	uint32_t crc, csize, usize, offset;
	uint16_t method;
	unsigned mode;
};

struct zipw {
	FILE *f;
	uint64_t off;
	struct member *m;
	size_t n, cap;
	uint16_t dos_time, dos_date;
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

static int out(struct zipw *z, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, z->f) != n)
		return -EIO;
	z->off += n;
	return z->off > UINT32_MAX ? -EFBIG : 0;
}

struct zipw *zipw_new(FILE *f)
{
	struct zipw *z = calloc(1, sizeof(*z));
	time_t now = time(NULL);
	struct tm tm;

	if (!z)
		return NULL;
	z->f = f;
	localtime_r(&now, &tm);
	if (tm.tm_year < 80)
		tm.tm_year = 80;
	z->dos_time = (uint16_t)((tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2));
	z->dos_date = (uint16_t)(((tm.tm_year - 80) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday);
	return z;
}

/* Raw deflate of @data into a new buffer; *clen its size. */
static unsigned char *deflate_raw(const void *data, size_t len, size_t *clen)
{
	z_stream s;
	unsigned char *buf;
	size_t cap;

	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	cap = deflateBound(&s, (uLong)len) + 16;
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&s);
		return NULL;
	}
	s.next_in = (Bytef *)(uintptr_t)data;
	s.avail_in = (uInt)len;
	s.next_out = buf;
	s.avail_out = (uInt)cap;
	if (deflate(&s, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&s);
		free(buf);
		return NULL;
	}
	*clen = s.total_out;
	deflateEnd(&s);
	return buf;
}

int zipw_add(struct zipw *z, const char *name, const void *data, size_t len, unsigned mode)
{
	unsigned char h[30], *comp = NULL;
	size_t nlen = strlen(name), clen = 0;
	struct member *m;
	int err;

	if (len > UINT32_MAX || nlen > 0xffff)
		return -EFBIG;
	if (z->n == z->cap) {
		size_t ncap = z->cap ? 2 * z->cap : 8;
		struct member *nm = realloc(z->m, ncap * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		z->m = nm;
		z->cap = ncap;
	}
	m = &z->m[z->n];
	memset(m, 0, sizeof(*m));
	m->name = strdup(name);
	if (!m->name)
		return -ENOMEM;
	m->crc = (uint32_t)crc32(crc32(0, Z_NULL, 0), data, (uInt)len);
	m->usize = (uint32_t)len;
	m->offset = (uint32_t)z->off;
	m->mode = mode;
	comp = len ? deflate_raw(data, len, &clen) : NULL;
	if (comp && clen < len) {
		m->method = 8;
		m->csize = (uint32_t)clen;
	} else {
		m->method = 0;
		m->csize = (uint32_t)len;
	}
	put32(h, 0x04034b50);
	put16(h + 4, 20);		/* version needed: 2.0 (deflate) */
	put16(h + 6, 0x0800);		/* names are UTF-8 */
	put16(h + 8, m->method);
	put16(h + 10, z->dos_time);
	put16(h + 12, z->dos_date);
	put32(h + 14, m->crc);
	put32(h + 18, m->csize);
	put32(h + 22, m->usize);
	put16(h + 26, (unsigned)nlen);
	put16(h + 28, 0);
	err = out(z, h, sizeof(h));
	if (!err)
		err = out(z, name, nlen);
	if (!err)
		err = out(z, m->method == 8 ? comp : data, m->csize);
	free(comp);
	if (err) {
		free(m->name);
		return err;
	}
	z->n++;
	return 0;
}

int zipw_finish(struct zipw *z)
{
	uint32_t cd_start = (uint32_t)z->off;
	unsigned char h[46], e[22];
	size_t i;
	int err = 0;

	if (z->n > 0xffff)
		err = -EFBIG;
	for (i = 0; !err && i < z->n; i++) {
		const struct member *m = &z->m[i];
		size_t nlen = strlen(m->name);

		put32(h, 0x02014b50);
		put16(h + 4, (3 << 8) | 20);	/* made by: Unix, 2.0 */
		put16(h + 6, 20);
		put16(h + 8, 0x0800);
		put16(h + 10, m->method);
		put16(h + 12, z->dos_time);
		put16(h + 14, z->dos_date);
		put32(h + 16, m->crc);
		put32(h + 20, m->csize);
		put32(h + 24, m->usize);
		put16(h + 28, (unsigned)nlen);
		put16(h + 30, 0);		/* extra */
		put16(h + 32, 0);		/* comment */
		put16(h + 34, 0);		/* disk */
		put16(h + 36, 0);		/* internal attributes */
		put32(h + 38, (uint32_t)(0100000 | (m->mode & 07777)) << 16);	/* regular file */
		put32(h + 42, m->offset);
		err = out(z, h, sizeof(h));
		if (!err)
			err = out(z, m->name, nlen);
	}
	if (!err) {
		put32(e, 0x06054b50);
		put16(e + 4, 0);
		put16(e + 6, 0);
		put16(e + 8, (unsigned)z->n);
		put16(e + 10, (unsigned)z->n);
		put32(e + 12, (uint32_t)z->off - cd_start);
		put32(e + 16, cd_start);
		put16(e + 20, 0);
		err = out(z, e, sizeof(e));
	}
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
	free(z);
}

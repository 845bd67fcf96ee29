/* SPDX-License-Identifier: MIT */
/* A kernel's parameter layout read from its module image, for drivers
 * older than CUDA 12.4 (no cuFuncGetParamInfo). A cubin has, per kernel, an
 * .nv.info.<name> section of attributes; EIATTR_KPARAM_INFO gives each
 * parameter's ordinal, offset and size (bits 18..31 of its last word). A
 * fatbin holds cubins (and PTX) per architecture, each possibly compressed:
 * the one for the device's architecture is taken, inflated when it is
 * compressed: with libzstd (CUDA 13's default, and `-compress-mode=size`;
 * found with dlopen), or LZ4 (CUDA 12's `-compress-all`, as PyTorch's wheels
 * are built, and 13's `-compress-mode=speed`), which is read here. */
#include <dlfcn.h>
#include <elf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"

#define EIFMT_NVAL 1
#define EIFMT_BVAL 2
#define EIFMT_HVAL 3
#define EIFMT_SVAL 4
#define EIATTR_KPARAM_INFO 0x17

#define FATBIN_KIND_ELF 2
#define FATBIN_COMPRESSED_ZSTD 0x8000
#define FATBIN_COMPRESSED_LZ4  0x2000
#define MAX_CUBIN	       ((size_t)256 << 20) /* the largest inflated cubin taken */

struct fatbin_entry {
	uint16_t kind, version;
	uint32_t header_size;
	uint64_t size;
	uint32_t compressed_size, unknown;
	uint16_t minor, major;
	uint32_t arch;
	uint32_t name_offset, name_len;
	uint64_t flags, zero, decompressed_size;
};

static int by_offset(const void *a, const void *b)
{
	const size_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The layout from the .nv.info section of @kernel in the cubin @p. Every
 * offset is checked against @len as a size (no sum that could wrap), and
 * headers are copied out, not read in place: a cubin inside a fatbin need
 * not be aligned. */
static int cubin_layout(const unsigned char *p, size_t len, const char *kernel, size_t (**out)[2], size_t *n)
{
	Elf64_Ehdr eh;
	Elf64_Shdr strs;
	size_t i, want = strlen(kernel);

	if (len < sizeof(eh))
		return -1;
	memcpy(&eh, p, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shoff > len ||
	    eh.e_shnum > (len - eh.e_shoff) / sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum)
		return -1;
	memcpy(&strs, p + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof(Elf64_Shdr), sizeof(strs));
	if (strs.sh_offset > len)
		return -1;
	for (i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		const char *name;
		size_t a, end;

		memcpy(&sh, p + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof(sh));
		/* the name and its NUL, and the section, lie inside the image */
		if (sh.sh_name > len - strs.sh_offset || 9 + want >= len - strs.sh_offset - sh.sh_name ||
		    sh.sh_offset > len || sh.sh_size > len - sh.sh_offset)
			continue;
		name = (const char *)p + strs.sh_offset + sh.sh_name;
		if (memcmp(name, ".nv.info.", 9) || memcmp(name + 9, kernel, want + 1))
			continue;
		a = sh.sh_offset;
		end = sh.sh_offset + sh.sh_size;
		*n = 0;
		while (end - a >= 2) {
			unsigned fmt = p[a], attr = p[a + 1];
			uint16_t sz;

			a += 2;
			/* every record is 4-byte aligned: a value-less one or a
			 * byte's still has its two bytes */
			if (fmt == EIFMT_NVAL || fmt == EIFMT_BVAL || fmt == EIFMT_HVAL) {
				if (end - a < 2)
					break;
				a += 2;
				continue;
			}
			if (fmt != EIFMT_SVAL || end - a < 2)
				break;
			memcpy(&sz, p + a, 2);
			a += 2;
			if (sz > end - a)
				break;
			if (attr == EIATTR_KPARAM_INFO && sz >= 12) {
				uint16_t off;
				uint32_t flags;
				size_t(*grown)[2] = realloc(*out, (*n + 1) * sizeof(**out));

				if (!grown)
					return -1;
				*out = grown;
				memcpy(&off, p + a + 6, 2);
				memcpy(&flags, p + a + 8, 4);
				(*out)[*n][0] = off;
				(*out)[*n][1] = (flags >> 18) & 0x3fff;
				(*n)++;
			}
			a += sz;
		}
		/* the section lists them last parameter first */
		if (*n > 1)
			qsort(*out, *n, sizeof(**out), by_offset);
		return 0;
	}
	return -1;
}

/* libzstd's one-shot decompression, when the library is there. Looked up once
 * (pthread_once): a thread that saw a plain "looked" flag could find the
 * functions not yet stored and give up on the image. */
typedef size_t zstd_dec_fn(void *, size_t, const void *, size_t);
typedef unsigned zstd_iserr_fn(size_t);
static pthread_once_t zstd_once = PTHREAD_ONCE_INIT;
static zstd_dec_fn *dec;
static zstd_iserr_fn *iserr;

static void zstd_find(void)
{
	void *h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);

	if (h) {
		*(void **)&dec = rec_real_in(h, "ZSTD_decompress");
		*(void **)&iserr = rec_real_in(h, "ZSTD_isError");
	}
}

static size_t unzstd(void *dst, size_t cap, const void *src, size_t len)
{
	size_t r;

	pthread_once(&zstd_once, zstd_find);
	if (!dec || !iserr)
		return 0;
	r = dec(dst, cap, src, len);
	return iserr(r) ? 0 : r;
}

/* One LZ4 length: *@n (a nibble of the token), and when it is 15 the
 * bytes that follow, each added, up to one that is not 255. False when the
 * input ends first. */
static bool lz4_len(const unsigned char *src, size_t len, size_t *i, size_t *n)
{
	unsigned char b;

	if (*n != 15)
		return true;
	do {
		if (*i >= len)
			return false;
		b = src[(*i)++];
		*n += b;
	} while (b == 255);
	return true;
}

/* An LZ4 block (the format, not the frame): sequences of a token (the
 * literals' length in its high nibble, the match's less 4 in the low one),
 * the literals, then the match as a 2-byte little-endian distance back into
 * what was written; the last sequence has literals only. Returns the bytes
 * written to @dst, 0 for input that is not such a block or does not fit
 * @cap: nothing outside @src or @dst is touched whatever the bytes say. */
static size_t unlz4(unsigned char *dst, size_t cap, const unsigned char *src, size_t len)
{
	size_t i = 0, o = 0;

	while (i < len) {
		unsigned char tok = src[i++];
		size_t lit = tok >> 4, m = tok & 15, back, k;

		if (!lz4_len(src, len, &i, &lit) || lit > len - i || lit > cap - o)
			return 0;
		memcpy(dst + o, src + i, lit);
		i += lit;
		o += lit;
		if (i == len)
			return o;
		if (len - i < 2)
			return 0;
		back = src[i] | (size_t)src[i + 1] << 8;
		i += 2;
		if (!back || back > o || !lz4_len(src, len, &i, &m) || (m += 4) > cap - o)
			return 0;
		/* byte by byte: a match may overlap what it repeats */
		for (k = 0; k < m; k++, o++)
			dst[o] = dst[o - back];
	}
	return 0; /* a block ends with literals */
}

int rec_nvinfo_layout(const void *image, size_t len, enum rec_image_kind kind, const char *kernel, int arch,
		      size_t (**out)[2], size_t *n)
{
	const unsigned char *p = image;
	uint64_t fat;
	uint16_t hs;
	size_t e, end;
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (kind == REC_IMG_CUBIN)
		return cubin_layout(p, len, kernel, out, n);
	if (kind != REC_IMG_FATBIN || len < 16)
		return -1;
	memcpy(&hs, p + 6, 2);
	memcpy(&fat, p + 8, 8);
	if (hs > len || fat > len - hs)
		return -1;
	end = hs + fat;
	/* offsets, each step checked as a size: an entry's sizes cannot wrap */
	for (e = hs; end - e >= sizeof(struct fatbin_entry) && rc;) {
		struct fatbin_entry h;

		memcpy(&h, p + e, sizeof(h));
		if (h.header_size < sizeof(h) || h.header_size > end - e || h.size > end - e - h.header_size)
			break;
		if (h.kind == FATBIN_KIND_ELF && (int)h.arch == arch) {
			const unsigned char *body = p + e + h.header_size;
			size_t clen = h.compressed_size && h.compressed_size <= h.size ? h.compressed_size : h.size;

			if (!(h.flags & (FATBIN_COMPRESSED_ZSTD | FATBIN_COMPRESSED_LZ4))) {
				rc = cubin_layout(body, h.size, kernel, out, n);
			} else if (h.decompressed_size && h.decompressed_size <= MAX_CUBIN &&
				   ((h.flags & FATBIN_COMPRESSED_ZSTD) || h.decompressed_size / 255 <= clen)) {
				/* a size no cubin has, or more than LZ4 can make of
				 * the body (255 bytes a byte at most), is a bad header */
				unsigned char *cubin = malloc(h.decompressed_size);
				size_t got = 0;

				if (cubin && (h.flags & FATBIN_COMPRESSED_ZSTD))
					got = unzstd(cubin, h.decompressed_size, body, clen);
				else if (cubin)
					got = unlz4(cubin, h.decompressed_size, body, clen);
				if (got == h.decompressed_size)
					rc = cubin_layout(cubin, h.decompressed_size, kernel, out, n);
				free(cubin);
			}
		}
		e += h.header_size + (size_t)h.size;
	}
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* Gzip text. A small file is inflated by libdeflate into anonymous memory in
 * one call; anything bigger (or multi-member, or whose trailer cannot be
 * trusted) is streamed by zlib through a small buffer into an unlinked
 * temporary file under $TMPDIR, which is then mapped like a plain .json: the
 * page cache holds the text, so the loader's window can drop scanned pages
 * and the process stays small whatever the trace's size. Faulting in fresh
 * anonymous pages is what made whole-file inflation slow on big traces, so
 * the file is the faster path too, not only the leaner one.
 *
 * The size limits (tl_text_limits) are checked against what the trailer
 * declares before any work, and again while inflating, so a gzip bomb ends
 * with a message within its first megabytes, not by exhausting memory or
 * disk. */
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>

#include "base/base_internal.h"

#define CHUNK (1u << 20)		/* zlib output per write() */
#define RATIO_AFTER (16u << 20)	/* the ratio limit applies past this much text */
#define DEFLATE_MAX_RATIO 1032u	/* no deflate stream inflates more than this */

/* "1.5 GB" for messages. */
static const char *human(char *buf, size_t n, uint64_t v)
{
	if (v >= (1ull << 30))
		snprintf(buf, n, "%.1f GB", (double)v / (double)(1ull << 30));
	else if (v >= (1ull << 20))
		snprintf(buf, n, "%.1f MB", (double)v / (double)(1ull << 20));
	else
		snprintf(buf, n, "%llu bytes", (unsigned long long)v);
	return buf;
}

const char *tl_tmp_dir(const struct tl_text_limits *l)
{
	const char *d = l->tmpdir;

	if (!d || !*d)
		d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

/* A declared size is the gzip trailer's, which a cut-off file does not have
 * (its last four bytes are deflate data), so that message allows for it. */
int tl_text_over_limits(const char *label, const struct tl_text_limits *l, uint64_t text,
			uint64_t in, enum tl_text_size how)
{
	static const char *const what[] = { "holds", "gzip trailer declares", "inflates to more than" };
	const char *why = how == TL_SIZE_DECLARED ? "; or the file is cut off and its trailer is garbage" : "";
	char a[32], b[32];

	if (l->max_text && text > l->max_text)
		return tl_err(-EFBIG, "%s: %s %s of text, over the %s limit (--max-text or "
			      "TLREPLAY_MAX_TEXT raises it%s)", label, what[how],
			      human(a, sizeof(a), text), human(b, sizeof(b), l->max_text), why);
	if (how != TL_SIZE_PLAIN && l->max_ratio && in && text >= RATIO_AFTER &&
	    text / in > l->max_ratio)
		return tl_err(-EFBIG, "%s: %s %s of text from %s of gzip (%llu:1, over the %u:1 limit; "
			      "traces compress 10-30:1, TLREPLAY_MAX_RATIO raises it%s)", label,
			      how == TL_SIZE_DECLARED ? what[how] : "inflates to",
			      human(a, sizeof(a), text), human(b, sizeof(b), in),
			      (unsigned long long)(text / in), l->max_ratio, why);
	return 0;
}

/* ------------------------------------------------------------ in memory */

/* libdeflate into an anonymous mapping of exactly @isize bytes. 1 when the
 * stream is not one member of that size (the caller streams it instead). */
static int inflate_mem(const char *label, const unsigned char *in, size_t in_len, size_t isize,
		       struct tl_text *out)
{
	struct libdeflate_decompressor *d = NULL;
	size_t cap = isize + 1, actual_in = 0, actual_out = 0;
	enum libdeflate_result r;
	char *buf;
	int ret = 1;

	buf = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	if (buf == MAP_FAILED)
		return tl_err(-ENOMEM, "%s: out of memory inflating gzip data", label);
	d = libdeflate_alloc_decompressor();
	if (!d) {
		ret = tl_err(-ENOMEM, "%s: out of memory inflating gzip data", label);
		goto out;
	}
	r = libdeflate_gzip_decompress_ex(d, in, in_len, buf, cap, &actual_in, &actual_out);
	if (r == LIBDEFLATE_SUCCESS && actual_in == in_len && actual_out == isize) {
		out->p = buf;
		out->len = actual_out;
		out->map_len = cap;
		out->is_file = false;
		buf = NULL;
		ret = 0;
	}
out:
	if (d)
		libdeflate_free_decompressor(d);
	if (buf)
		munmap(buf, cap);
	return ret;
}

/* ------------------------------------------------------ to a temporary file */

/* An unlinked file in the temporary directory: O_TMPFILE where the file
 * system has it, else mkstemp + unlink. */
int tl_tmpfile(const char *label, const char *dir)
{
	char *path = NULL;
	int fd, e;

	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	e = errno;
	if (e == EOPNOTSUPP || e == EISDIR || e == EINVAL) {
		if (asprintf(&path, "%s/tlreplay-XXXXXX", dir) < 0)
			return tl_err(-ENOMEM, "%s: out of memory", label);
		fd = mkostemp(path, O_CLOEXEC);
		e = errno;
		if (fd >= 0)
			unlink(path);
		free(path);
		if (fd >= 0)
			return fd;
	}
	return tl_err(-e, "%s: cannot create a temporary file in %s to read it through: %s (set "
		      "TMPDIR to a writable directory)", label, dir, strerror(e));
}

static int no_room(const char *label, const char *dir, uint64_t need, uint64_t done)
{
	struct statvfs vfs;
	char a[32], b[32];
	uint64_t avail = 0;

	if (!statvfs(dir, &vfs))
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (need > done)
		return tl_err(-ENOSPC, "%s: no room in %s to inflate the trace: %s needed, %s free (set "
			      "TMPDIR to a file system with room)", label, dir, human(a, sizeof(a), need),
			      human(b, sizeof(b), avail + done));
	return tl_err(-ENOSPC, "%s: no room in %s to inflate the trace: more than %s needed, %s free "
		      "(set TMPDIR to a file system with room)", label, dir, human(a, sizeof(a), done),
		      human(b, sizeof(b), avail + done));
}

int tl_write_all(int fd, const void *p, size_t n)
{
	const char *buf = p;

	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reserve @need bytes up front so that a full file system is refused before
 * anything is inflated. File systems without fallocate are checked by
 * statvfs, and by write() failing later. */
static int reserve(const char *label, const char *dir, int fd, uint64_t need)
{
	struct statvfs vfs;

	if (!need)
		return 0;
	if (fallocate(fd, 0, 0, (off_t)need) == 0)
		return 0;
	if (errno == ENOSPC || errno == EFBIG)
		return no_room(label, dir, need, 0);
	if (!fstatvfs(fd, &vfs) && (uint64_t)vfs.f_bavail * vfs.f_frsize < need)
		return no_room(label, dir, need, 0);
	return 0;
}

struct spill {
	const char *label, *dir;
	const struct tl_text_limits *lim;
	int fd;
	uint64_t written;
	char *buf;
};

/* Stream every gzip member of @in through zlib into the file. */
static int spill_stream(struct spill *s, const unsigned char *in, size_t in_len, uint64_t need)
{
	size_t next_tick = 0;
	z_stream zs;
	int zr, err = 0;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return tl_err(-ENOMEM, "%s: cannot initialise zlib", s->label);
	zs.next_in = (unsigned char *)in;
	for (;;) {
		size_t used = (size_t)(zs.next_in - in), left = in_len - used, got;

		zs.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
		zs.next_out = (unsigned char *)s->buf;
		zs.avail_out = CHUNK;
		zr = inflate(&zs, Z_NO_FLUSH);
		got = CHUNK - zs.avail_out;
		if (got) {
			err = tl_text_over_limits(s->label, s->lim, s->written + got, used ? used : 1,
						  TL_SIZE_INFLATING);
			if (err)
				goto out;
			err = tl_write_all(s->fd, s->buf, got);
			if (err == -ENOSPC || err == -EDQUOT) {
				err = no_room(s->label, s->dir, need, s->written);
				goto out;
			}
			if (err) {
				err = tl_err(err, "%s: writing the inflated text to %s: %s", s->label, s->dir,
					     strerror(-err));
				goto out;
			}
			s->written += got;
		}
		if (s->lim->progress && used >= next_tick) {
			s->lim->progress(used, in_len, s->lim->pctx);
			next_tick = used + (4u << 20);
		}
		if (zr == Z_STREAM_END) {
			used = (size_t)(zs.next_in - in);
			/* Another gzip member follows (as `cat a.gz b.gz` makes)? */
			if (used + 2 <= in_len && in[used] == 0x1f && in[used + 1] == 0x8b) {
				inflateReset(&zs);
				continue;
			}
			break;
		}
		if (zr == Z_BUF_ERROR && zs.avail_in == 0) {
			err = tl_err(-EBADMSG, "%s: truncated gzip data (%llu bytes inflated)", s->label,
				     (unsigned long long)s->written);
			goto out;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			err = tl_err(-EBADMSG, "%s: corrupt gzip data (%s, after %llu bytes of text)",
				     s->label, zs.msg ? zs.msg : "inflate failed",
				     (unsigned long long)s->written);
			goto out;
		}
	}
	if (s->lim->progress)
		s->lim->progress(in_len, in_len, s->lim->pctx);
out:
	inflateEnd(&zs);
	return err;
}

static int inflate_spill(const char *label, const unsigned char *in, size_t in_len, uint64_t need,
			 const struct tl_text_limits *l, struct tl_text *out)
{
	struct spill s = { .label = label, .dir = tl_tmp_dir(l), .lim = l, .fd = -1 };
	void *m;
	int err;

	s.fd = tl_tmpfile(label, s.dir);
	if (s.fd < 0)
		return s.fd;
	s.buf = malloc(CHUNK);
	if (!s.buf) {
		err = tl_err(-ENOMEM, "%s: out of memory", label);
		goto out;
	}
	err = reserve(label, s.dir, s.fd, need);
	if (!err)
		err = spill_stream(&s, in, in_len, need);
	if (err)
		goto out;
	if (!s.written) {
		err = tl_err(-ENODATA, "%s: the gzip data holds no text", label);
		goto out;
	}
	/* A reservation bigger than the text (a trailer that lied) is cut off. */
	if (ftruncate(s.fd, (off_t)s.written)) {
		err = tl_err(-errno, "%s: cannot size the temporary file in %s: %s", label, s.dir,
			     strerror(errno));
		goto out;
	}
	m = mmap(NULL, s.written, PROT_READ, MAP_PRIVATE, s.fd, 0);
	if (m == MAP_FAILED) {
		err = tl_err(-errno, "%s: cannot map the inflated text: %s", label, strerror(errno));
		goto out;
	}
	madvise(m, s.written, MADV_SEQUENTIAL);
	out->p = m;
	out->len = s.written;
	out->map_len = s.written;
	out->is_file = true;
	out->inflated = true;
out:
	free(s.buf);
	close(s.fd);	/* the mapping keeps the unlinked file alive */
	return err;
}

/* ------------------------------------------------------------------ entry */

int tl_gzip_inflate(const char *label, const unsigned char *in, size_t in_len,
		    const struct tl_text_limits *l, struct tl_text *out)
{
	uint64_t isize;
	bool plausible, exact;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (in_len < 18)
		return tl_err(-EBADMSG, "%s: truncated gzip data (%zu bytes)", label, in_len);
	/* The trailer holds the (last member's) size mod 2^32: exact when even
	 * deflate's best ratio could not reach 4 GiB, else a lower bound. */
	isize = (uint64_t)in[in_len - 4] | (uint64_t)in[in_len - 3] << 8 |
		(uint64_t)in[in_len - 2] << 16 | (uint64_t)in[in_len - 1] << 24;
	plausible = isize <= (uint64_t)in_len * DEFLATE_MAX_RATIO;
	exact = plausible && (uint64_t)in_len * DEFLATE_MAX_RATIO < (1ull << 32);
	/* A cut-off file ends in deflate data, not a trailer: judge its size
	 * by what it inflates to, where the message can say it is cut off. */
	if (plausible)
		err = tl_text_over_limits(label, l, isize, in_len, TL_SIZE_DECLARED);
	if (err)
		return err;
	if (exact && isize < l->spill_min) {
		err = inflate_mem(label, in, in_len, (size_t)isize, out);
		if (err <= 0)
			return err;
		/* Several members, or a trailer that does not match: stream it. */
	}
	return inflate_spill(label, in, in_len, plausible ? isize : 0, l, out);
}

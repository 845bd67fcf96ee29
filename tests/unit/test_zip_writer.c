/* SPDX-License-Identifier: MIT */
/* The zip writer of `tlreplay pack` (perf-plugin/util/zip-writer.c): members from
 * memory and from files, small (deflated whole) and streamed (deflated or
 * stored, by a probe of their start), to a regular file (local headers
 * patched) and to a pipe (data descriptors); ZIP64 records forced on a small
 * archive by low limits, none in a plain one, and a real one past 4 GiB
 * (a sparse source; the stored zeros become holes, so it costs a few
 * seconds and no disk). Each archive is read back by Python's zipfile
 * (strict about ZIP64) and tested by `unzip -t`. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../perf-plugin/util/zip-writer.c"
#include "tap.h"

static char dir[] = "/tmp/tl-zipw-XXXXXX";
static const char *py = "/usr/bin/python3";

/* Reads ZIP and compares each member with the file a manifest names
 * (name TAB source TAB 1 to compare the bytes, 0 the size and the first MiB,
 * with every byte read: zipfile checks the CRC at the end); prints
 * the archive's greatest extract version and highest local header offset. */
static const char check_py[] =
	"import sys, zipfile\n"
	"z = zipfile.ZipFile(sys.argv[1])\n"
	"want = [l.rstrip('\\n').split('\\t') for l in open(sys.argv[2])]\n"
	"names = [i.filename for i in z.infolist()]\n"
	"assert names == [w[0] for w in want], (names, want)\n"
	"for name, src, full in want:\n"
	"    i = z.getinfo(name)\n"
	"    data = open(src, 'rb')\n"
	"    if full == '1':\n"
	"        assert z.read(name) == data.read(), name\n"
	"    else:\n"
	"        import os\n"
	"        assert i.file_size == os.path.getsize(src), (name, i.file_size)\n"
	"        with z.open(name) as m:\n"
	"            assert m.read(1 << 20) == data.read(1 << 20), name\n"
	"            n = 1 << 20\n"
	"            while True:\n"
	"                b = m.read(1 << 24)\n"
	"                if not b:\n"
	"                    break\n"
	"                n += len(b)\n"
	"            assert n == i.file_size, (name, n)\n"
	"print(max(i.extract_version for i in z.infolist()), max(i.header_offset for i in z.infolist()))\n";

/* @name in the test's folder (kept for the test's life: paths_free()) */
static char *paths[256];
static size_t npaths;

static char *path_of(const char *name)
{
	char *p = NULL;

	if (npaths == sizeof(paths) / sizeof(*paths) || asprintf(&p, "%s/%s", dir, name) < 0) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	return paths[npaths++] = p;
}

static void paths_free(void)
{
	while (npaths)
		free(paths[--npaths]);
}

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int err = !f || fwrite(p, 1, n, f) != n;

	if (f && fclose(f))
		err = 1;
	return err ? -1 : 0;
}

/* @n bytes that deflate does not shrink */
static unsigned char *noise(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n);
	size_t i;

	for (i = 0; p && i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (unsigned char)(seed >> 16);
	}
	return p;
}

/* @n bytes of text that deflate shrinks */
static unsigned char *text(size_t n)
{
	unsigned char *p = malloc(n);
	size_t i;

	for (i = 0; p && i < n; i++)
		p[i] = (unsigned char)("tensor(float) "[i % 14] + (i / 4096) % 7);
	return p;
}

struct want {
	const char *name, *src;
	int full;
};

/* Python's verdict on @zip against @w: 0 and its printed line in @line, or -1. */
static int py_check(const char *zip, const struct want *w, size_t n, char *line, size_t cap)
{
	char cmd[2048];
	FILE *m = fopen(path_of("manifest"), "w"), *p;
	size_t i;
	int st;

	if (!m || write_file(path_of("check.py"), check_py, strlen(check_py)))
		return -1;
	for (i = 0; i < n; i++)
		fprintf(m, "%s\t%s\t%d\n", w[i].name, w[i].src, w[i].full);
	fclose(m);
	snprintf(cmd, sizeof(cmd), "%s %s %s %s 2>&1", py, path_of("check.py"), zip, path_of("manifest"));
	p = popen(cmd, "r");
	if (!p)
		return -1;
	line[0] = 0;
	while (fgets(line, (int)cap, p))
		;		/* the last line: the verdict, or the exception */
	st = pclose(p);
	line[strcspn(line, "\n")] = 0;
	return st == 0 ? 0 : -1;
}

static int unzip_t(const char *zip)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "unzip -tq %s >%s 2>&1", zip, path_of("unzip.out"));
	return system(cmd) == 0 ? 0 : -1;
}

static void show_unzip(void)
{
	char line[512];
	FILE *f = fopen(path_of("unzip.out"), "r");

	while (f && fgets(line, sizeof(line), f))
		diag("unzip: %s", strtok(line, "\n"));
	if (f)
		fclose(f);
}

/* Whether the archive at @path holds @sig (4 bytes, little-endian) in its
 * last @tail bytes. */
static int has_sig(const char *path, uint32_t sig, size_t tail)
{
	unsigned char buf[1 << 16], s[4];
	FILE *f = fopen(path, "rb");
	size_t n, i;
	off_t size;

	if (!f)
		return 0;
	put32(s, sig);
	fseeko(f, 0, SEEK_END);
	size = ftello(f);
	if (tail > sizeof(buf))
		tail = sizeof(buf);
	fseeko(f, size > (off_t)tail ? size - (off_t)tail : 0, SEEK_SET);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (i = 0; i + 4 <= n; i++)
		if (!memcmp(buf + i, s, 4))
			return 1;
	return 0;
}

/* The members every small archive has: from memory (empty, text) and from
 * files (a small one, a streamed deflated one, a streamed stored one). */
static int add_small_set(struct zipw *z, struct want *w)
{
	static const char hello[] = "hello, zip\n";
	int fd, err = 0;
	const char *files[] = { "small.txt", "text3m.bin", "noise3m.bin" };
	size_t i;

	w[0] = (struct want){ "d/empty", path_of("empty"), 1 };
	w[1] = (struct want){ "d/hello.txt", path_of("hello"), 1 };
	err = zipw_add(z, "d/empty", NULL, 0, 0644);
	if (!err)
		err = zipw_add(z, "d/hello.txt", hello, strlen(hello), 0644);
	for (i = 0; !err && i < 3; i++) {
		static char names[3][64];

		snprintf(names[i], sizeof(names[i]), "d/blobs/%s", files[i]);
		w[2 + i] = (struct want){ names[i], path_of(files[i]), 1 };
		fd = open(path_of(files[i]), O_RDONLY);
		if (fd < 0)
			return -errno;
		err = zipw_add_fd(z, names[i], fd, (uint64_t)lseek(fd, 0, SEEK_END), 0644);
		close(fd);
	}
	return err;
}

static void make_sources(void)
{
	unsigned char *t = text(3 << 20), *r = noise(3 << 20, 7);

	if (!t || !r || write_file(path_of("empty"), "", 0) || write_file(path_of("hello"), "hello, zip\n", 11) ||
	    write_file(path_of("small.txt"), t, 5000) || write_file(path_of("text3m.bin"), t, 3 << 20) ||
	    write_file(path_of("noise3m.bin"), r, 3 << 20)) {
		printf("Bail out! cannot write the sources in %s\n", dir);
		exit(1);
	}
	free(t);
	free(r);
}

/* A small archive to a regular file or (@pipe) through `cat`, with ZIP64
 * forced when @force. */
static void small_archive(const char *zip, int pipe, int force)
{
	struct want w[5];
	char cmd[600], line[512];
	const char *how = pipe ? "through a pipe" : "to a file", *what = force ? "ZIP64 forced" : "plain";
	FILE *f;
	struct zipw *z;
	int err, st;

	snprintf(cmd, sizeof(cmd), "cat >%s", zip);
	f = pipe ? popen(cmd, "w") : fopen(zip, "wb");
	z = f ? zipw_new(f) : NULL;
	if (z && force)
		zipw_set_zip64_limits(z, 1, 1);
	err = z ? add_small_set(z, w) : -ENOMEM;
	if (!err)
		err = zipw_finish(z);
	else
		zipw_abort(z);
	st = !f ? -1 : pipe ? pclose(f) : fclose(f);
	ok(!err && !st, "%s %s: written (%s)", what, how, strerror(-err));
	ok(!py_check(zip, w, 5, line, sizeof(line)), "%s %s: Python's zipfile reads every member back (%s)", what,
	   how, line);
	ok(atoi(line) == (force ? 45 : 20), "%s %s: extract version %d", what, how, atoi(line));
	ok(has_sig(zip, 0x06064b50, 200) == force && has_sig(zip, 0x07064b50, 200) == force,
	   "%s %s: %s ZIP64 end record and locator", what, how, force ? "a" : "no");
	if (!ok(!unzip_t(zip), "%s %s: unzip -t", what, how))
		show_unzip();
}

/* A file in memory (memfd: its holes cost neither disk nor time to read)
 * and the path another process opens it by. */
static int mem_file(const char *name, char *path, size_t n)
{
	int fd = memfd_create(name, 0);

	snprintf(path, n, "/proc/%d/fd/%d", (int)getpid(), fd);
	return fd;
}

static double since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* A member past 4 GiB: 1 MiB of noise (so the probe stores it) then
 * zeros to 4.3 GB, as a hole; a small member after it lies beyond 4 GiB.
 * Source and archive are memfds, the archive sparse too. */
static void past_4g(void)
{
	const uint64_t big = 4300000000ull;
	unsigned char *head = noise(1 << 20, 11);
	char src[64], zip[64], line[512], cmd[300];
	struct want w[3];
	struct stat st;
	struct timespec t0;
	struct zipw *z = NULL;
	FILE *f = NULL;
	int fd = mem_file("big.bin", src, sizeof(src)), zfd = mem_file("big.zip", zip, sizeof(zip)), err;

	if (fd < 0 || zfd < 0 || !head || pwrite(fd, head, 1 << 20, 0) != 1 << 20 || ftruncate(fd, (off_t)big)) {
		skip("no memfd for a sparse 4.3 GB file");
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	f = fdopen(zfd, "w");
	z = f ? zipw_new(f) : NULL;
	err = z ? zipw_add(z, "d/README", "big\n", 4, 0644) : -ENOMEM;
	if (!err)
		err = zipw_add_fd(z, "d/big.bin", fd, big, 0644);
	if (!err)
		err = zipw_add(z, "d/after", "after the big one\n", 18, 0644);
	if (!err)
		err = zipw_finish(z);
	else
		zipw_abort(z);
	if (f && fflush(f))
		err = -errno;
	ok(!err, "a 4.3 GB member: written in %.1f s (%s)", since(&t0), strerror(-err));
	write_file(path_of("readme.src"), "big\n", 4);
	write_file(path_of("after.src"), "after the big one\n", 18);
	w[0] = (struct want){ "d/README", path_of("readme.src"), 1 };
	w[1] = (struct want){ "d/big.bin", src, 0 };
	w[2] = (struct want){ "d/after", path_of("after.src"), 1 };
	ok(!py_check(zip, w, 3, line, sizeof(line)) && strchr(line, ' ') &&
		   strtoull(strchr(line, ' ') + 1, NULL, 10) > big,
	   "past 4 GiB: Python's zipfile reads the sizes and the member after it (version, offset: %s)", line);
	ok(has_sig(zip, 0x06064b50, 300) && has_sig(zip, 0x07064b50, 300), "past 4 GiB: ZIP64 end record and locator");
	fstat(zfd, &st);
	ok(st.st_size > (off_t)big && st.st_blocks * 512 < (16 << 20),
	   "past 4 GiB: stored zeros are holes (%lld bytes, %lld allocated)", (long long)st.st_size,
	   (long long)st.st_blocks * 512);
	/* unzip -t would spend 15 s on its CRC of the zeros: Python checked it */
	snprintf(cmd, sizeof(cmd), "unzip -l %s | tail -1 | grep -q '^4300000022 .* 3 files$' && "
		 "unzip -p %s d/after | grep -qx 'after the big one'", zip, zip);
	ok(!system(cmd), "past 4 GiB: unzip lists the sizes and extracts the member after it");
out:
	if (f)
		fclose(f);
	else if (zfd >= 0)
		close(zfd);
	if (fd >= 0)
		close(fd);
	free(head);
}

int main(void)
{
	struct zipw *z;
	FILE *f;
	int fd, err;

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	if (access(py, X_OK) || system("unzip -v >/dev/null 2>&1"))
		skip_all("needs /usr/bin/python3 and unzip (scripts/install-deps.sh)");
	make_sources();
	small_archive(path_of("plain.zip"), 0, 0);
	small_archive(path_of("plain-pipe.zip"), 1, 0);
	small_archive(path_of("zip64.zip"), 0, 1);
	small_archive(path_of("zip64-pipe.zip"), 1, 1);

	/* a file shorter than its caller says */
	f = fopen(path_of("short.zip"), "wb");
	fd = open(path_of("text3m.bin"), O_RDONLY);
	z = f && fd >= 0 ? zipw_new(f) : NULL;
	err = z ? zipw_add_fd(z, "d/short", fd, (3 << 20) + 1, 0644) : -ENOMEM;
	ok(err == -ENODATA, "a file that ends before its size: -ENODATA (%s)", strerror(-err));
	zipw_abort(z);
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);

	past_4g();
	if (!tap_failed) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			diag("could not remove %s", dir);
	}
	paths_free();
	return done_testing();
}

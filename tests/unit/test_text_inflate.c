/* SPDX-License-Identifier: MIT */
/* Reading trace text under bounded memory: gzip inflated in memory or
 * through an unlinked temporary file gives the same bytes; multi-member
 * files, pipes, cut-off and corrupt data; the size and ratio limits, checked
 * on what a file declares and on what it inflates to; a missing or full
 * temporary directory named in the message; and a loader that gets through
 * padding and oversized metadata. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cjson/cJSON.h>
#include <tlreplay/tlreplay.h>

#include "base/base_internal.h"
#include "tap.h"

static char dir[] = "/tmp/tl-inflate-XXXXXX";

struct buf {
	unsigned char *p;
	size_t n;
};

/* A Kineto-like trace of @nev events with varying numbers (compresses
 * about as real traces do), optionally padded after each event. */
static struct buf make_trace(unsigned nev, size_t pad_every, size_t pad)
{
	struct buf b = { NULL, 0 };
	size_t cap = (size_t)nev * 200 + 64 + (pad_every ? nev / pad_every * pad : 0);
	unsigned i, seed = 12345;

	b.p = malloc(cap + pad + 64);
	b.n = (size_t)sprintf((char *)b.p, "{\"traceEvents\": [\n");
	for (i = 0; i < nev; i++) {
		seed = seed * 1103515245u + 12345u;
		b.n += (size_t)sprintf((char *)b.p + b.n,
				       "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%u\", "
				       "\"pid\": 1, \"tid\": 2, \"ts\": %u.%03u, \"dur\": %u}\n",
				       i ? "," : "", seed % 97, i * 10, seed % 1000, seed % 500 + 1);
		if (pad_every && i % pad_every == pad_every - 1) {
			memset(b.p + b.n, ' ', pad);
			b.n += pad;
		}
	}
	b.n += (size_t)sprintf((char *)b.p + b.n, "]}\n");
	return b;
}

/* gzip @in as one member. */
static struct buf gz(const unsigned char *in, size_t n)
{
	struct buf b;
	z_stream zs;

	memset(&zs, 0, sizeof(zs));
	deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
	b.p = malloc(deflateBound(&zs, n) + 64);
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = b.p;
	zs.avail_out = (uInt)(deflateBound(&zs, n) + 64);
	deflate(&zs, Z_FINISH);
	b.n = zs.total_out;
	deflateEnd(&zs);
	return b;
}

static const char *write_file(const char *name, const void *p1, size_t n1, const void *p2, size_t n2)
{
	static char path[8][512];
	static int k;
	char *p = path[k++ % 8];
	FILE *f;

	snprintf(p, 512, "%s/%s", dir, name);
	f = fopen(p, "wb");
	fwrite(p1, 1, n1, f);
	if (p2)
		fwrite(p2, 1, n2, f);
	fclose(f);
	return p;
}

static void limits(struct tl_text_limits *l, uint64_t spill_min)
{
	memset(l, 0, sizeof(*l));
	l->spill_min = spill_min;
	l->tmpdir = dir;
}

static bool same(const struct tl_text *t, const unsigned char *p, size_t n)
{
	return t->len == n && !memcmp(t->p, p, n);
}

static bool msg_has(const char *a, const char *b)
{
	const char *m = tl_last_error();

	return *m && !strchr(m, '\n') && strstr(m, a) && (!b || strstr(m, b));
}

static void test_paths(const struct buf *text, const struct buf *z)
{
	const char *p = write_file("t.json.gz", z->p, z->n, NULL, 0);
	struct tl_text_limits l;
	struct tl_text t;
	int err;

	limits(&l, UINT64_MAX);
	err = tl_text_read_ex(p, &l, &t);
	ok(!err && same(&t, text->p, text->n) && !t.is_file, "small gzip: inflated in memory (%zu bytes)",
	   t.len);
	tl_text_free(&t);
	limits(&l, 0);
	err = tl_text_read_ex(p, &l, &t);
	ok(!err && same(&t, text->p, text->n) && t.is_file,
	   "gzip from the spill size on: inflated into a mapped temporary file");
	/* dropping and refaulting pages of that file gives the text back */
	tl_text_drop_pages(&t, 0, t.len);
	ok(same(&t, text->p, text->n), "its pages come back from the page cache after a drop");
	tl_text_free(&t);
	{
		int n = 0;
		char cmd[600];
		FILE *f;

		snprintf(cmd, sizeof(cmd), "ls -A %s | grep -c tlreplay-", dir);
		f = popen(cmd, "r");
		if (f && fscanf(f, "%d", &n) != 1)
			n = -1;
		if (f)
			pclose(f);
		ok(n == 0, "the temporary file is unlinked (none left in the directory)");
	}
	/* two members, as `cat a.gz b.gz` makes */
	p = write_file("two.json.gz", z->p, z->n, z->p, z->n);
	limits(&l, UINT64_MAX);
	err = tl_text_read_ex(p, &l, &t);
	ok(!err && t.len == 2 * text->n && !memcmp(t.p, text->p, text->n) &&
		   !memcmp(t.p + text->n, text->p, text->n),
	   "two gzip members: both inflated, one after the other");
	tl_text_free(&t);
}

static void test_bad_gzip(const struct buf *z)
{
	struct tl_text_limits l;
	struct tl_text t;
	unsigned char *bad;
	const char *p;
	int err;

	p = write_file("cut.json.gz", z->p, z->n / 2, NULL, 0);
	limits(&l, 0);
	err = tl_text_read_ex(p, &l, &t);
	ok(err == -EBADMSG && msg_has("cut.json.gz", "truncated gzip"), "cut-off gzip: %s",
	   tl_last_error());
	bad = malloc(z->n);
	memcpy(bad, z->p, z->n);
	memset(bad + z->n / 3, 0xff, 64);
	p = write_file("junk.json.gz", bad, z->n, NULL, 0);
	err = tl_text_read_ex(p, &l, &t);
	ok(err == -EBADMSG && msg_has("junk.json.gz", "corrupt gzip"), "corrupt gzip: %s", tl_last_error());
	limits(&l, UINT64_MAX);
	err = tl_text_read_ex(p, &l, &t);
	ok(err == -EBADMSG && msg_has("junk.json.gz", "corrupt gzip"),
	   "corrupt gzip, small-file path: the same message");
	free(bad);
}

static void test_limits(const struct buf *text, const struct buf *z)
{
	struct tl_text_limits l;
	struct tl_text t;
	struct buf pad, padz, tiny, tinyz;
	const char *p;
	int err;

	p = write_file("plain.json", text->p, text->n, NULL, 0);
	limits(&l, 0);
	l.max_text = text->n - 1;
	err = tl_text_read_ex(p, &l, &t);
	ok(err == -EFBIG && msg_has("plain.json", "over the") && strstr(tl_last_error(), "--max-text"),
	   "plain text over --max-text: %s", tl_last_error());
	l.max_text = text->n;
	err = tl_text_read_ex(p, &l, &t);
	ok(!err, "plain text at the limit loads");
	tl_text_free(&t);

	p = write_file("big.json.gz", z->p, z->n, NULL, 0);
	l.max_text = text->n - 1;
	err = tl_text_read_ex(p, &l, &t);
	ok(err == -EFBIG && msg_has("big.json.gz", "trailer declares"),
	   "gzip declaring more than the limit, refused before inflating: %s", tl_last_error());

	/* the trailer tells the last member only: caught while inflating */
	tiny = make_trace(1, 0, 0);
	tinyz = gz(tiny.p, tiny.n);
	p = write_file("hidden.json.gz", z->p, z->n, tinyz.p, tinyz.n);
	err = tl_text_read_ex(p, &l, &t);
	ok(err == -EFBIG && msg_has("hidden.json.gz", "inflates to more than"),
	   "gzip inflating past the limit, stopped there: %s", tl_last_error());

	/* a bomb: 40 MB of padding in a tiny gzip */
	pad = make_trace(4, 2, 20u << 20);
	padz = gz(pad.p, pad.n);
	p = write_file("bomb.json.gz", padz.p, padz.n, NULL, 0);
	limits(&l, 0);
	l.max_ratio = 200;
	err = tl_text_read_ex(p, &l, &t);
	ok(err == -EFBIG && msg_has("bomb.json.gz", "over the 200:1 limit"),
	   "gzip declaring a bomb's ratio: %s", tl_last_error());
	p = write_file("bomb2.json.gz", padz.p, padz.n, tinyz.p, tinyz.n);
	err = tl_text_read_ex(p, &l, &t);
	ok(err == -EFBIG && msg_has("bomb2.json.gz", "inflates to") && strstr(tl_last_error(), ":1"),
	   "gzip inflating at a bomb's ratio, stopped early: %s", tl_last_error());
	l.max_ratio = 0;
	err = tl_text_read_ex(p, &l, &t);
	ok(!err && t.len == pad.n + tiny.n && t.is_file, "with no ratio limit it inflates");
	tl_text_free(&t);
	{
		struct tl_trace *tr = NULL;

		p = write_file("bomb.json", pad.p, pad.n, NULL, 0);
		err = tl_trace_open(p, NULL, &tr);
		ok(!err && tl_trace_nevents(tr) == 4, "a trace with 20 MB runs of padding loads (%d)", err);
		tl_trace_close(tr);
	}
	free(pad.p);
	free(padz.p);
	free(tiny.p);
	free(tinyz.p);
}

static void test_tmpdir(const struct buf *text, const struct buf *z)
{
	const char *p = write_file("t2.json.gz", z->p, z->n, NULL, 0);
	struct tl_text_limits l;
	struct tl_text t;
	pid_t pid;
	int err, st;

	limits(&l, 0);
	l.tmpdir = "/nonexistent/tl-tmp";
	err = tl_text_read_ex(p, &l, &t);
	ok(err == -ENOENT && msg_has("/nonexistent/tl-tmp", "TMPDIR"), "missing temporary directory: %s",
	   tl_last_error());
	/* A file-size limit stands for a full file system: the reservation fails. */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 256 << 10, 256 << 10 };

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		limits(&l, 0);
		err = tl_text_read_ex(p, &l, &t);
		printf("# child: %d %s\n", err, tl_last_error());
		fflush(stdout);
		_exit(err == -ENOSPC && msg_has("no room in", dir) && strstr(tl_last_error(), "needed") ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "no room for the inflated text: refused, naming the "
	   "directory and the size");
	(void)text;
}

/* Read @data through a pipe, as `-i <(zcat ...)` does. */
static int read_pipe(const struct buf *data, struct tl_text *t)
{
	struct tl_text_limits l;
	char path[64];
	int fds[2], err;
	pid_t pid;

	if (pipe(fds))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		tl_write_all(fds[1], data->p, data->n);
		_exit(0);
	}
	close(fds[1]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[0]);
	limits(&l, 0);
	err = tl_text_read_ex(path, &l, t);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return err;
}

static void test_pipe(const struct buf *text, const struct buf *z)
{
	struct tl_text t;
	int err;

	err = read_pipe(text, &t);
	ok(!err && same(&t, text->p, text->n) && t.is_file, "plain text from a pipe, through a file");
	tl_text_free(&t);
	err = read_pipe(z, &t);
	ok(!err && same(&t, text->p, text->n), "gzip from a pipe");
	tl_text_free(&t);
}

static void test_parse_size(void)
{
	static const struct {
		const char *s;
		int err;
		uint64_t v;
	} cases[] = {
		{ "4096", 0, 4096 }, { "8G", 0, 8ull << 30 }, { "500M", 0, 500ull << 20 },
		{ "1.5GB", 0, 3ull << 29 }, { "2GiB", 0, 2ull << 30 }, { "64k", 0, 65536 },
		{ "none", 0, 0 }, { "0", 0, 0 }, { "1x", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ "-1G", -EINVAL, 0 }, { "G", -EINVAL, 0 }, { "1e30", -EINVAL, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 77;
		int err = tl_parse_size(cases[i].s, &v);

		ok(err == cases[i].err && (err || v == cases[i].v), "size '%s' -> %d %llu", cases[i].s, err,
		   (unsigned long long)v);
	}
}

static int warned;

static void count_warn(enum tl_log_level lvl, const char *msg, void *ctx)
{
	(void)ctx;
	if (lvl == TL_LOG_WARN && strstr(msg, "left out"))
		warned++;
}

static void test_big_meta(void)
{
	size_t n = (17u << 20) + 200;
	char *doc = malloc(n + 256);
	struct tl_trace *tr = NULL;
	const char *p;
	size_t k;
	int err;

	k = (size_t)sprintf(doc, "{\"deviceProperties\": [{\"id\": 0}], \"junk\": \"");
	memset(doc + k, 'x', 17u << 20);
	k += 17u << 20;
	k += (size_t)sprintf(doc + k, "\", \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", "
			     "\"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}]}");
	p = write_file("meta.json", doc, k, NULL, 0);
	tl_set_print(count_warn, NULL);
	err = tl_trace_open(p, NULL, &tr);
	tl_set_print(NULL, NULL);
	ok(!err && tr && cJSON_GetObjectItem(tl_trace_metadata(tr), "deviceProperties") &&
		   !cJSON_GetObjectItem(tl_trace_metadata(tr), "junk") && warned == 1,
	   "a 17 MB top-level value is left out with a warning; the rest loads");
	tl_trace_close(tr);
	free(doc);
}

int main(void)
{
	struct buf text, z;
	char cmd[600];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	text = make_trace(20000, 0, 0);
	z = gz(text.p, text.n);
	diag("fixture: %zu bytes of text, %zu of gzip", text.n, z.n);
	test_paths(&text, &z);
	test_bad_gzip(&z);
	test_limits(&text, &z);
	test_tmpdir(&text, &z);
	test_pipe(&text, &z);
	test_parse_size();
	test_big_meta();
	free(text.p);
	free(z.p);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	return done_testing();
}

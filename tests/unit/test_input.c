/* SPDX-License-Identifier: MIT */
/* Small inputs read whole within a limit (tlreplay/input.h): a regular file,
 * gzip (members one after another, a bomb, a cut-off file), the limit from
 * the caller and from TLREPLAY_MAX_JSON, a device, a directory, a FIFO
 * refused at once where only a file will do and read where a pipe may be, a
 * symbolic link refused in a part of a directory of ours; and the results
 * store, which holds each record to the limit and must be a regular file.
 * Whatever could hang (a FIFO) runs under alarm(). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cjson/cJSON.h>
#include <tlreplay/input.h>
#include <tlreplay/store.h>

#include "tap.h"

static char dir[] = "/tmp/test_input.XXXXXX";
static char path[512];

static const char *at(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void put(const char *name, const void *p, size_t n)
{
	FILE *f = fopen(at(name), "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		abort();
}

/* @n bytes of @p gzipped as one member into *@out (malloc'ed). */
static size_t gz(const void *p, size_t n, unsigned char **out)
{
	z_stream zs = { 0 };
	size_t cap = n + n / 100 + 1024;

	*out = malloc(cap);
	if (!*out || deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	zs.next_in = (unsigned char *)p;
	zs.avail_in = (uInt)n;
	zs.next_out = *out;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		abort();
	deflateEnd(&zs);
	return cap - zs.avail_out;
}

static int rd(const char *p, unsigned flags, uint64_t max, char **buf, size_t *len)
{
	*buf = NULL;
	return tl_input_read(p, "a test input", flags, max, buf, len);
}

static bool said(const char *a, const char *b)
{
	return strstr(tl_last_error(), a) && (!b || strstr(tl_last_error(), b));
}

static int count(const cJSON *rec, size_t line, void *ctx)
{
	(void)rec;
	(void)line;
	++*(int *)ctx;
	return 0;
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "Bail out! tl_input_read hung on a FIFO\n";

	if (write(1, m, sizeof(m) - 1) < 0)
		_exit(2);
	_exit(1);
}

int main(void)
{
	static const char json[] = "[{\"op_name\": \"aten::add\"}]";
	unsigned char *z1, *z2, *both;
	char *buf, *big;
	size_t len, n1, n2;
	int err, fd, recs = 0;
	pid_t pid;

	plan(31);
	signal(SIGALRM, on_alarm);
	if (!mkdtemp(dir))
		return 1;
	unsetenv("TLREPLAY_MAX_JSON");

	/* ------------------------------------------------------------ files */
	put("a.json", json, strlen(json));
	err = rd(at("a.json"), 0, 0, &buf, &len);
	ok(!err && len == strlen(json) && !memcmp(buf, json, len) && !buf[len], "a regular file is read whole, NUL after");
	free(buf);
	err = rd(at("a.json"), 0, 10, &buf, &len);
	ok(err == -EFBIG && !buf && said("a.json: holds more than 10 bytes, the limit for a test input", NULL) &&
	   !strstr(tl_last_error(), "TLREPLAY_MAX_JSON"), "over the caller's limit: -EFBIG, the file and the limit named (%s)",
	   tl_last_error());
	err = rd(at("a.json"), 0, strlen(json), &buf, &len);
	ok(!err && len == strlen(json), "exactly at the limit is fine");
	free(buf);
	put("empty", "", 0);
	err = rd(at("empty"), 0, 0, &buf, &len);
	ok(!err && len == 0 && buf && !buf[0], "an empty file: no bytes, a NUL");
	free(buf);
	err = rd(at("none"), 0, 0, &buf, &len);
	ok(err == -ENOENT && said("none: cannot open", NULL), "a missing file: -ENOENT named (%s)", tl_last_error());

	/* ------------------------------------------------------------ the limit's default */
	ok(tl_input_max() == TL_INPUT_MAX_DEFAULT && TL_INPUT_MAX_DEFAULT == 1ull << 30, "the default limit is 1 GiB");
	setenv("TLREPLAY_MAX_JSON", "16", 1);
	ok(tl_input_max() == 16, "TLREPLAY_MAX_JSON=16: 16 bytes");
	err = rd(at("a.json"), 0, 0, &buf, &len);
	ok(err == -EFBIG && said("holds more than 16 bytes", "(TLREPLAY_MAX_JSON sets it)"),
	   "the environment's limit applies when the caller gives none, and is named (%s)", tl_last_error());
	setenv("TLREPLAY_MAX_JSON", "2M", 1);
	ok(tl_input_max() == 2u << 20, "TLREPLAY_MAX_JSON=2M");
	setenv("TLREPLAY_MAX_JSON", "none", 1);
	ok(tl_input_max() == UINT64_MAX, "TLREPLAY_MAX_JSON=none: no limit");
	setenv("TLREPLAY_MAX_JSON", "lots", 1);
	ok(tl_input_max() == TL_INPUT_MAX_DEFAULT, "TLREPLAY_MAX_JSON=lots: the default");
	unsetenv("TLREPLAY_MAX_JSON");

	/* ------------------------------------------------------------ gzip */
	n1 = gz(json, strlen(json), &z1);
	n2 = gz(" ", 1, &z2);
	both = malloc(n1 + n2 + 3);
	memcpy(both, z1, n1);
	memcpy(both + n1, z2, n2);
	put("a.json.gz", both, n1 + n2);
	err = rd(at("a.json.gz"), TL_INPUT_GUNZIP, 0, &buf, &len);
	ok(!err && len == strlen(json) + 1 && !memcmp(buf, json, strlen(json)) && buf[len - 1] == ' ',
	   "gzip: two members inflated one after the other");
	free(buf);
	err = rd(at("a.json.gz"), 0, 0, &buf, &len);
	ok(!err && len == n1 + n2, "without TL_INPUT_GUNZIP the bytes are as they are");
	free(buf);
	put("cut.json.gz", z1, n1 - 6);
	err = rd(at("cut.json.gz"), TL_INPUT_GUNZIP, 0, &buf, &len);
	ok(err == -EBADMSG && said("cut.json.gz: corrupt or truncated gzip", NULL), "a cut-off gzip: -EBADMSG (%s)",
	   tl_last_error());
	big = calloc(1, 8u << 20);
	free(z2);
	n2 = gz(big, 8u << 20, &z2);
	put("bomb.gz", z2, n2);
	err = rd(at("bomb.gz"), TL_INPUT_GUNZIP, 1u << 20, &buf, &len);
	ok(err == -EFBIG && said("bomb.gz: inflates to more than 1 MiB", NULL),
	   "a gzip of %zu bytes that inflates past the limit: -EFBIG (%s)", n2, tl_last_error());
	free(big);

	/* ------------------------------------------------------------ what is not a file */
	alarm(20);
	err = rd("/dev/zero", TL_INPUT_PIPE | TL_INPUT_GUNZIP, 0, &buf, &len);
	ok(err == -EINVAL && said("/dev/zero: a character device, not a test input (read from a regular file or a pipe)",
				  NULL), "/dev/zero: refused at once, not read to the limit (%s)", tl_last_error());
	err = rd(dir, TL_INPUT_PIPE, 0, &buf, &len);
	ok(err == -EINVAL && said(": a directory, not a test input", NULL), "a directory (%s)", tl_last_error());
	if (mkfifo(at("fifo"), 0600))
		return 1;
	err = rd(at("fifo"), 0, 0, &buf, &len);
	ok(err == -EINVAL && said("fifo: a FIFO, not a test input (read from a regular file)", NULL),
	   "a FIFO where only a file will do: refused without waiting for a writer (%s)", tl_last_error());
	err = rd(at("fifo"), TL_INPUT_PART, 0, &buf, &len);
	ok(err == -EINVAL, "the same as a part of a directory of ours");
	pid = fork();
	if (pid == 0) {
		int w = open(at("fifo"), O_WRONLY);

		_exit(w >= 0 && write(w, json, strlen(json)) == (ssize_t)strlen(json) ? 0 : 1);
	}
	err = rd(at("fifo"), TL_INPUT_PIPE, 0, &buf, &len);
	waitpid(pid, NULL, 0);
	ok(!err && len == strlen(json) && !memcmp(buf, json, len), "a FIFO where a pipe may be: read");
	free(buf);
	pid = fork();
	if (pid == 0) {
		int w = open(at("fifo"), O_WRONLY);
		char zeros[65536] = { 0 };

		signal(SIGPIPE, SIG_IGN);
		while (w >= 0 && write(w, zeros, sizeof(zeros)) > 0)
			;
		_exit(0);
	}
	err = rd(at("fifo"), TL_INPUT_PIPE, 1u << 20, &buf, &len);
	ok(err == -EFBIG && said("fifo: holds more than 1 MiB", NULL), "a pipe that never ends: stopped at the limit (%s)",
	   tl_last_error());
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	alarm(0);

	/* ------------------------------------------------------------ links */
	if (symlink("a.json", at("link.json")))
		return 1;
	err = rd(at("link.json"), TL_INPUT_PIPE, 0, &buf, &len);
	ok(!err && len == strlen(json), "a symbolic link is followed for the user's own files");
	free(buf);
	err = rd(at("link.json"), TL_INPUT_PART, 0, &buf, &len);
	ok(err == -EINVAL && said("link.json: a symbolic link, refused: a test input must be a regular file in its "
				  "directory", NULL), "a symbolic link as a part of a directory of ours: refused (%s)",
	   tl_last_error());
	if (symlink("/dev/zero", at("zero.json")))
		return 1;
	err = rd(at("zero.json"), TL_INPUT_PIPE, 0, &buf, &len);
	ok(err == -EINVAL && said("zero.json: a character device", NULL), "a link to /dev/zero: what it is, said");

	/* ------------------------------------------------------------ the results store */
	fd = open(at("store.jsonl"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	big = malloc(3000);
	memset(big, ' ', 3000);
	memcpy(big, "{\"v\":1", 6);
	memcpy(big + 2997, "}\n", 2);
	if (fd < 0 || write(fd, "{\"v\":1}\n", 8) != 8 || write(fd, big, 2999) != 2999 || close(fd))
		return 1;
	free(big);
	err = tl_store_read(at("store.jsonl"), count, &recs, NULL);
	ok(!err && recs == 2, "a store of a short and a 3000-byte record: both read");
	setenv("TLREPLAY_MAX_JSON", "2K", 1);
	recs = 0;
	err = tl_store_read(at("store.jsonl"), count, &recs, NULL);
	ok(err == -EFBIG && recs == 1 && said("store.jsonl:2: a line of more than 2 KiB", "TLREPLAY_MAX_JSON"),
	   "a record over the limit: -EFBIG naming the store and the line, the records before it delivered (%s)",
	   tl_last_error());
	unsetenv("TLREPLAY_MAX_JSON");
	alarm(20);
	err = tl_store_read(at("fifo"), count, &recs, NULL);
	ok(err == -EINVAL && said("fifo: not a regular file; a results store is one", NULL),
	   "a FIFO as the store: refused, not waited on (%s)", tl_last_error());
	err = tl_store_read("/dev/zero", count, &recs, NULL);
	ok(err == -EINVAL, "/dev/zero as the store: refused, not read forever");
	{
		cJSON *rec = cJSON_CreateObject();

		err = tl_store_append(at("fifo"), rec);
		ok(err == -EINVAL && said("not a regular file", NULL), "appending to a FIFO: refused (%s)", tl_last_error());
		err = tl_store_append(at("store2.jsonl"), rec);
		ok(!err, "appending to a new store still works");
		cJSON_Delete(rec);
	}
	alarm(0);
	ok(tl_store_read(at("store2.jsonl"), count, &recs, NULL) == 0, "and it reads back");

	free(z1);
	free(z2);
	free(both);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			diag("could not remove %s", dir);
	}
	return tap_failed != 0;
}

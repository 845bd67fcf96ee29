/* SPDX-License-Identifier: MIT */
/* Every kind of bad input gets an error code and a one-line message that
 * names the file and, for malformed JSON, where. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <tlreplay/tlreplay.h>

#include "tap.h"

static char dir[] = "/tmp/tl-load-errors-XXXXXX";

static const char *write_file(const char *name, const void *data, size_t len)
{
	static char path[4][512];
	static int k;
	char *p = path[k++ % 4];
	FILE *f;

	snprintf(p, 512, "%s/%s", dir, name);
	f = fopen(p, "wb");
	fwrite(data, 1, len, f);
	fclose(f);
	return p;
}

static int try_open(const char *path)
{
	struct tl_trace *tr = NULL;
	int err = tl_trace_open(path, NULL, &tr);

	tl_trace_close(tr);
	return err;
}

static bool one_line_naming(const char *what)
{
	const char *m = tl_last_error();

	return *m && !strchr(m, '\n') && strstr(m, what);
}

static void check_json(const char *name, const char *text, int want, const char *msg_part)
{
	const char *p = write_file(name, text, strlen(text));
	int err = try_open(p);

	if (want == 0)
		ok(err == 0, "%s loads", name);
	else
		ok(err == want && one_line_naming(name) &&
			   (!msg_part || strstr(tl_last_error(), msg_part)),
		   "%s: %s", name, tl_last_error());
}

static const char *gzip_file(const char *name, const char *text, size_t cut)
{
	static char path[512];
	gzFile gz;
	FILE *f;
	long len;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	gz = gzopen(path, "wb");
	gzwrite(gz, text, (unsigned)strlen(text));
	gzclose(gz);
	if (!cut)
		return path;
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len);
	if (fread(buf, 1, (size_t)len, f) != (size_t)len)
		len = 0;
	fclose(f);
	write_file(name, buf, (size_t)len - cut);
	free(buf);
	return path;
}

int main(void)
{
	const char *good = "{\"traceEvents\": [{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2}]}";
	struct tl_trace *tr = NULL;
	const char *p;
	int err;

	if (!mkdtemp(dir))
		skip_all("cannot create a temporary directory");

	check_json("good.json", good, 0, NULL);
	check_json("truncated.json", "{\"traceEvents\": [{\"ph\":\"X\",\"name\":\"a\",\"ts\":1",
		   -EBADMSG, "truncated JSON");
	check_json("invalid.json", "{\"traceEvents\": [{\"ph\":\"X\" \"name\":\"a\"}]}", -EBADMSG,
		   "line 1");
	check_json("where.json", "{\"traceEvents\": [\n{\"ph\":\"X\"},\n{\"ph\": tru}\n]}", -EBADMSG,
		   "traceEvents[1]");
	check_json("garbage.json", "{\"traceEvents\": [{}]} trailing", -EBADMSG, "after the end");
	check_json("top.json", "\"just a string\"", -EBADMSG, "top level");
	check_json("not-json.json", "hello world", -EBADMSG, "top level");
	check_json("empty-events.json", "{\"traceEvents\": []}", -ENODATA, "empty");
	check_json("no-events.json", "{\"schemaVersion\": 1}", -ENODATA, "no traceEvents");
	check_json("events-not-array.json", "{\"traceEvents\": {}}", -EBADMSG, "not an array");
	check_json("event-not-object.json", "{\"traceEvents\": [1, 2]}", -EBADMSG, "not a JSON object");
	check_json("whitespace.json", "   \n  ", -ENODATA, "whitespace");
	check_json("empty.json", "", -ENODATA, "empty file");
	check_json("bare-array.json", "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2}]", 0, NULL);

	/* Times that are no clock's are refused where they are written, as a NaN
	 * literal is: 1e400 reads as inf, 1e308 makes ts + dur inf. */
	check_json("nan.json", "{\"traceEvents\": [{\"ph\":\"X\",\"ts\":1,\"dur\":NaN}]}", -EBADMSG,
		   "traceEvents[0]");
	check_json("dur-inf.json", "{\"traceEvents\": [\n{\"ph\":\"X\",\"ts\":1,\"dur\":2},\n"
		   "{\"ph\":\"X\",\"ts\":5,\"dur\":1e400}]}", -EBADMSG,
		   "dur out of range (infinite, or beyond +-2^63 ns) at byte 68 (line 3, column 24) in traceEvents[1]");
	check_json("ts-neg-inf.json", "{\"traceEvents\": [{\"ph\":\"X\",\"ts\":\"-1e400\",\"dur\":2}]}",
		   -EBADMSG, "ts out of range (infinite, or beyond +-2^63 ns) at byte 32 (line 1, column 33) in traceEvents[0]");
	check_json("ts-huge.json", "{\"traceEvents\": [{\"ph\":\"X\",\"ts\":1e308,\"dur\":1e308}]}", -EBADMSG,
		   "ts out of range");
	check_json("dur-huge.json", "{\"traceEvents\": [{\"ph\":\"i\",\"ts\":0,\"dur\":-1e16}]}",
		   -EBADMSG, "dur out of range");
	check_json("ts-edge.json", "{\"traceEvents\": [{\"ph\":\"X\",\"ts\":9223372036854775,\"dur\":-9223372036854775}]}",
		   0, NULL);

	p = gzip_file("good.json.gz", good, 0);
	ok(try_open(p) == 0, "gzip trace loads");
	p = gzip_file("cut.json.gz", good, 10);
	err = try_open(p);
	ok(err == -EBADMSG && one_line_naming("cut.json.gz"), "truncated gzip: %s", tl_last_error());
	{
		char junk[64] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03 this is not deflate data at all";

		p = write_file("corrupt.json.gz", junk, sizeof(junk));
		err = try_open(p);
		ok(err == -EBADMSG && one_line_naming("corrupt.json.gz"), "corrupt gzip: %s",
		   tl_last_error());
	}

	err = try_open(dir);
	ok(err == -EISDIR && one_line_naming("directory"), "a directory: %s", tl_last_error());
	snprintf((char *)(p = write_file("x", "", 0)), 512, "%s/missing.json", dir);
	err = try_open(p);
	ok(err == -ENOENT && one_line_naming("missing.json"), "a missing file: %s", tl_last_error());
	if (geteuid() == 0) {
		skip("unreadable file: running as root, permissions do not apply");
	} else {
		p = write_file("secret.json", good, strlen(good));
		chmod(p, 0);
		err = try_open(p);
		ok(err == -EACCES && one_line_naming("secret.json"), "an unreadable file: %s",
		   tl_last_error());
	}

	/* UID range */
	p = write_file("uid.json", good, strlen(good));
	if (tl_trace_open(p, NULL, &tr) == 0) {
		struct tl_event_info e;

		ok(tl_trace_event(tr, 1, &e) == -ERANGE && strstr(tl_last_error(), "UID 1"),
		   "unknown UID: %s", tl_last_error());
		tl_trace_close(tr);
	}
	ok(tl_trace_open_mem("{\"traceEvents\": [{\"a\":1}]}", 26, "mem", NULL, &tr) == 0,
	   "open from memory");
	tl_trace_close(tr);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			diag("could not remove %s", dir);
	}
	return done_testing();
}

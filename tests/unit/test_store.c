/* SPDX-License-Identifier: MIT */
/* The results store: round trip, parallel appenders, a writer killed in the
 * middle of a record, a full disk, corruption, and the trace identity. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <cjson/cJSON.h>
#include <tlreplay/store.h>

#include "tap.h"

static char dir[PATH_MAX / 2];

static char *path_in(const char *name)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* The whole file (NUL-terminated, caller frees). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = 0;
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void spit(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

struct collect {
	int n;
	size_t last_line;
	cJSON *first;
	int stop_at;
	/* parallel test: records seen per writer, and order */
	int per_writer[8], next_seq[8];
	bool in_order;
};

static int collect_cb(const cJSON *rec, size_t line, void *ctx)
{
	struct collect *c = ctx;
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(rec, "writer");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(rec, "seq");

	c->n++;
	c->last_line = line;
	if (!c->first)
		c->first = cJSON_Duplicate(rec, true);
	if (cJSON_IsNumber(w) && cJSON_IsNumber(s) && w->valueint >= 0 && w->valueint < 8) {
		if (s->valueint != c->next_seq[w->valueint])
			c->in_order = false;
		c->next_seq[w->valueint] = s->valueint + 1;
		c->per_writer[w->valueint]++;
	}
	return c->stop_at && c->n == c->stop_at ? 7 : 0;
}

static int count_records(const char *path, bool *torn, int *rc)
{
	struct collect c = { .in_order = true };

	*rc = tl_store_read(path, collect_cb, &c, torn);
	cJSON_Delete(c.first);
	return c.n;
}

static int append_json(const char *path, const char *json)
{
	cJSON *rec = cJSON_Parse(json);
	int err = tl_store_append(path, rec);

	cJSON_Delete(rec);
	return err;
}

static bool ends_with_newline(const char *path)
{
	size_t n;
	char *t = slurp(path, &n);
	bool ok = t && n && t[n - 1] == '\n';

	free(t);
	return ok;
}

/* ------------------------------------------------------------------ tests */

static void test_round_trip(void)
{
	const char *p = path_in("a/b/results.jsonl");
	struct collect c = { .in_order = true };
	cJSON *rec;
	char *text;
	size_t n;
	bool torn = true;
	int rc;

	ok(append_json(p, "{\"command\":\"uid\",\"uid\":48,\"time_us\":{\"median\":1.5}}") == 0,
	   "append creates the store and its directories");
	ok(append_json(p, "{\"v\":1,\"error\":\"two\\nlines\"}") == 0 && append_json(p, "{}") == 0,
	   "append a record with a newline in a string, and an empty one");
	text = slurp(p, &n);
	ok(text && !strncmp(text, "{\"v\":1,\"command\":\"uid\",\"uid\":48,", 31) &&
		   strstr(text, "\n{\"v\":1,\"error\":\"two\\nlines\"}\n{\"v\":1}\n"),
	   "one line per record, \"v\" first when absent, newlines escaped");
	free(text);
	rc = tl_store_read(p, collect_cb, &c, &torn);
	ok(rc == 0 && c.n == 3 && c.last_line == 3 && !torn, "read back 3 records (rc %d, n %d)", rc,
	   c.n);
	ok(c.first && cJSON_GetObjectItem(c.first, "time_us") &&
		   cJSON_GetObjectItem(cJSON_GetObjectItem(c.first, "time_us"), "median")->valuedouble ==
			   1.5,
	   "the record reads back as written");
	cJSON_Delete(c.first);

	c = (struct collect){ .stop_at = 2, .in_order = true };
	rc = tl_store_read(p, collect_cb, &c, NULL);
	ok(rc == 7 && c.n == 2, "a callback's non-zero return stops the read and is returned");
	cJSON_Delete(c.first);

	rec = cJSON_CreateArray();
	ok(tl_store_append(p, rec) == -EINVAL, "a record that is not an object: -EINVAL");
	cJSON_Delete(rec);

	spit(p, "\n  \n", "a");
	ok(append_json(p, "{\"k\":4}") == 0 && count_records(p, &torn, &rc) == 4 && rc == 0,
	   "blank lines are skipped");
}

static void test_missing_and_corrupt(void)
{
	const char *p = path_in("corrupt.jsonl");
	struct collect c = { .in_order = true };
	int rc;

	ok(tl_store_read(path_in("nope/none.jsonl"), collect_cb, &c, NULL) == -ENOENT &&
		   strstr(tl_last_error(), "no results store"),
	   "missing store: -ENOENT (%s)", tl_last_error());

	spit(p, "{\"a\":1}\nnot json\n{\"a\":3}\n", "w");
	rc = tl_store_read(p, collect_cb, &c, NULL);
	ok(rc == -EBADMSG && strstr(tl_last_error(), "corrupt.jsonl:2:") && c.n == 1,
	   "a corrupt middle line: -EBADMSG naming file:line, records before it delivered (%s)",
	   tl_last_error());
	cJSON_Delete(c.first);

	spit(p, "{\"a\":1}\n[1,2]\n", "w");
	ok(count_records(p, NULL, &rc) == 1 && rc == -EBADMSG && strstr(tl_last_error(), ":2:"),
	   "a JSON array is not a record");
	spit(p, "{\"a\":1} trailing\n", "w");
	ok(count_records(p, NULL, &rc) == 0 && rc == -EBADMSG && strstr(tl_last_error(), ":1:"),
	   "trailing garbage after the object is corruption");
	{
		FILE *f = fopen(p, "wb");

		fwrite("{\"a\":1}\0{\"b\":2}\n", 1, 16, f);
		fclose(f);
	}
	ok(count_records(p, NULL, &rc) == 0 && rc == -EBADMSG, "a NUL byte inside a line is corruption");
}

static void test_default_path(void)
{
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	const char *p;

	setenv("TLREPLAY_STORE", "/x/store.jsonl", 1);
	p = tl_store_default_path();
	ok(p && !strcmp(p, "/x/store.jsonl"), "$TLREPLAY_STORE first");
	unsetenv("TLREPLAY_STORE");
	setenv("XDG_STATE_HOME", "/state", 1);
	p = tl_store_default_path();
	ok(p && !strcmp(p, "/state/tlreplay/results.jsonl"), "then $XDG_STATE_HOME/tlreplay/results.jsonl");
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", "/home/u", 1);
	p = tl_store_default_path();
	ok(p && !strcmp(p, "/home/u/.local/state/tlreplay/results.jsonl"),
	   "then ~/.local/state/tlreplay/results.jsonl");
	unsetenv("HOME");
	ok(tl_store_default_path() == NULL, "NULL without $HOME");
	if (old_home)
		setenv("HOME", old_home, 1);
	free(old_home);
}

/* The documented formula, computed independently. */
static void expected_sig(const unsigned char *data, size_t size, char out[17])
{
	unsigned char size8[8];
	size_t span = size < (1u << 20) ? size : (1u << 20);
	uLong h1, h2;
	int i;

	for (i = 0; i < 8; i++)
		size8[i] = (unsigned char)((uint64_t)size >> (8 * i));
	h1 = crc32(crc32(0L, size8, 8), data, (uInt)span);
	h2 = crc32(h1, data + size - span, (uInt)span);
	snprintf(out, 17, "%08lx%08lx", (unsigned long)h1, (unsigned long)h2);
}

static const char *sig_of(const char *path, cJSON **keep)
{
	cJSON *id = NULL;

	if (tl_store_trace_id(path, &id))
		return NULL;
	*keep = id;
	return cJSON_GetStringValue(cJSON_GetObjectItem(id, "sig"));
}

static void test_trace_id(void)
{
	size_t big = (3u << 20) + 17, i;
	unsigned char *data = malloc(big);
	const char *p = path_in("trace.json");
	char want[17], cwd[PATH_MAX];
	cJSON *id = NULL, *id2 = NULL;
	const char *s1, *s2;
	FILE *f;

	for (i = 0; i < big; i++)
		data[i] = (unsigned char)(i * 2654435761u >> 13);
	f = fopen(p, "wb");
	fwrite(data, 1, big, f);
	fclose(f);
	expected_sig(data, big, want);
	ok(tl_store_trace_id(p, &id) == 0 &&
		   !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(id, "sig")), want) &&
		   cJSON_GetObjectItem(id, "size")->valuedouble == (double)big &&
		   !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(id, "path")), p),
	   "trace id: path, size and the documented CRC-32 sig (%s)", want);
	cJSON_Delete(id);

	/* the middle is not hashed; the ends and the size are */
	f = fopen(p, "r+b");
	fseek(f, (long)(big / 2), SEEK_SET);
	fputc(data[big / 2] ^ 1, f);
	fclose(f);
	s1 = sig_of(p, &id);
	ok(s1 && !strcmp(s1, want), "a change in the middle keeps the sig (only 2 MiB are read)");
	f = fopen(p, "r+b");
	fputc(data[0] ^ 1, f);
	fclose(f);
	s2 = sig_of(p, &id2);
	ok(s2 && strcmp(s2, want), "a change in the first MiB changes it");
	cJSON_Delete(id);
	cJSON_Delete(id2);

	f = fopen(p, "wb");
	fwrite("{}", 1, 2, f);
	fclose(f);
	expected_sig((const unsigned char *)"{}", 2, want);
	s1 = sig_of(p, &id);
	ok(s1 && !strcmp(s1, want), "a tiny file");
	cJSON_Delete(id);

	if (getcwd(cwd, sizeof(cwd)) && chdir(dir) == 0) {
		id = NULL;
		ok(tl_store_trace_id("trace.json", &id) == 0 &&
			   !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(id, "path")), p),
		   "a relative path is made absolute");
		cJSON_Delete(id);
		if (chdir(cwd))
			diag("cannot go back to %s", cwd);
	} else {
		skip("cannot chdir");
	}
	id = NULL;
	ok(tl_store_trace_id(path_in("missing.json"), &id) == -ENOENT && !id, "missing trace: -ENOENT");
	ok(tl_store_trace_id(dir, &id) == -EINVAL, "a directory: -EINVAL");
	free(data);
}

static void test_parallel(void)
{
	const char *p = path_in("parallel.jsonl");
	struct collect c = { .in_order = true };
	pid_t kids[8];
	int i, status, all = 1, rc;
	bool torn = true;

	for (i = 0; i < 8; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			int k, bad = 0;
			char json[256];

			for (k = 0; k < 200; k++) {
				snprintf(json, sizeof(json),
					 "{\"writer\":%d,\"seq\":%d,\"pad\":\"%0*d\"}", i, k, 40 + (k % 60), k);
				bad |= append_json(p, json) != 0;
			}
			_exit(bad);
		}
	}
	for (i = 0; i < 8; i++)
		if (waitpid(kids[i], &status, 0) != kids[i] || !WIFEXITED(status) || WEXITSTATUS(status))
			all = 0;
	ok(all, "8 processes appended 200 records each without an error");
	rc = tl_store_read(p, collect_cb, &c, &torn);
	ok(rc == 0 && c.n == 1600 && !torn, "1600 whole records (rc %d, n %d)", rc, c.n);
	for (i = 0; i < 8; i++)
		all = all && c.per_writer[i] == 200;
	ok(all && c.in_order, "200 per writer, each writer's records in its order");
	cJSON_Delete(c.first);
}

static void test_torn_tail(void)
{
	const char *p = path_in("torn.jsonl");
	bool torn = false;
	int rc, n;

	append_json(p, "{\"a\":1}");
	append_json(p, "{\"a\":2}");
	spit(p, "{\"v\":1,\"a\":3,\"big\":\"xxxx", "a");	/* a writer died here */
	n = count_records(p, &torn, &rc);
	ok(rc == 0 && n == 2 && torn, "a torn last line is skipped and flagged, not an error");
	ok(append_json(p, "{\"a\":4}") == 0, "the next append succeeds");
	n = count_records(p, &torn, &rc);
	ok(rc == 0 && n == 3 && !torn && ends_with_newline(p), "... having cut the torn tail (3 records)");

	spit(p, "no newline at all", "w");
	ok(append_json(p, "{\"a\":5}") == 0 && count_records(p, &torn, &rc) == 1 && !torn,
	   "a store that is one torn line is cut to nothing");
}

/* A child appends 4 MiB records in a loop and is killed with SIGKILL. */
static void test_sigkill(void)
{
	const char *p = path_in("killed.jsonl");
	int round, torn_seen = 0, reads_ok = 1, appends_ok = 1, rc, n;
	size_t big = 4u << 20;
	char *pad = malloc(big + 1);
	struct stat st;

	memset(pad, 'x', big);
	pad[big] = 0;
	for (round = 0; round < 6; round++) {
		off_t before = stat(p, &st) ? 0 : st.st_size;
		pid_t kid = fork();
		bool torn = false;
		int k;

		if (kid == 0) {
			cJSON *rec = cJSON_CreateObject();

			cJSON_AddStringToObject(rec, "pad", pad);
			for (;;)
				tl_store_append(p, rec);
		}
		/* let it get going (slow under sanitizers), then kill it at a varying point */
		for (k = 0; k < 500 && (stat(p, &st) || st.st_size <= before); k++)
			usleep(10000);
		usleep(2000 + (useconds_t)round * 5000);
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
		n = count_records(p, &torn, &rc);
		if (rc)
			diag("round %d: read failed: %s", round, tl_last_error());
		reads_ok &= rc == 0;
		torn_seen += torn;
		appends_ok &= append_json(p, "{\"after\":1}") == 0;
		appends_ok &= count_records(p, &torn, &rc) == n + 1 && !torn && rc == 0;
		if (!appends_ok)
			diag("round %d: after the append: rc %d torn %d (%s)", round, rc, torn, tl_last_error());
	}
	ok(reads_ok, "after SIGKILL mid-append the store always reads (torn tail seen %d of 6 times)",
	   torn_seen);
	ok(appends_ok && ends_with_newline(p),
	   "and the next append leaves only whole records (torn tail cut)");
	free(pad);
}

/* RLIMIT_FSIZE makes write(2) fail with EFBIG (SIGXFSZ ignored) part way. */
static void test_file_size_limit(void)
{
	const char *p = path_in("limit.jsonl");
	char *before, *after, json[2100];
	size_t nb, na;
	pid_t kid;
	int status = 0;

	append_json(p, "{\"a\":1}");
	before = slurp(p, &nb);
	kid = fork();
	if (kid == 0) {
		struct rlimit rl = { nb + 100, nb + 100 };

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		snprintf(json, sizeof(json), "{\"pad\":\"%02000d\"}", 0);
		_exit(append_json(p, json) == -EFBIG ? 0 : 1);
	}
	waitpid(kid, &status, 0);
	after = slurp(p, &na);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "an append past RLIMIT_FSIZE fails with -EFBIG");
	ok(before && after && na == nb && !memcmp(before, after, nb),
	   "and leaves the file as it was (%zu bytes, was %zu)", na, nb);
	free(before);
	free(after);
}

/* A real full filesystem: a 64 KiB tmpfs, when we may mount one. */
static void test_full_tmpfs(void)
{
	char *mnt = path_in("tmpfs"), *p, *before = NULL, *after = NULL, json[8300];
	size_t nb = 0, na = 0;
	int err = 0, i, rc;
	bool torn;

	mkdir(mnt, 0755);
	if (mount("tlreplay-test", mnt, "tmpfs", 0, "size=64k")) {
		skip("cannot mount a tmpfs (not root?): the RLIMIT_FSIZE test covers failed appends");
		skip("cannot mount a tmpfs");
		return;
	}
	p = path_in("tmpfs/results.jsonl");
	snprintf(json, sizeof(json), "{\"pad\":\"%08000d\"}", 0);
	for (i = 0; i < 100 && !err; i++) {
		free(before);
		before = slurp(p, &nb);
		err = append_json(p, json);
	}
	after = slurp(p, &na);
	ok(err == -ENOSPC, "appending to a full filesystem fails with -ENOSPC (%d: %s)", err,
	   tl_last_error());
	ok(((!before && na == 0) || (before && after && na == nb && !memcmp(before, after, nb))) &&
		   count_records(p, &torn, &rc) == i - 1 && rc == 0 && !torn,
	   "the file is unchanged: %d whole records, %zu bytes", i - 1, na);
	free(before);
	free(after);
	umount(mnt);
}

/* Library warnings (a torn tail cut) become TAP comments. */
static void print_diag(enum tl_log_level lvl, const char *msg, void *ctx)
{
	(void)ctx;
	if (lvl <= TL_LOG_WARN)
		diag("%s", msg);
}

int main(void)
{
	tl_set_print(print_diag, NULL);
	snprintf(dir, sizeof(dir), "%s/tlreplay-store.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		skip_all("cannot make a temporary directory");
	test_round_trip();
	test_missing_and_corrupt();
	test_default_path();
	test_trace_id();
	test_parallel();
	test_torn_tail();
	test_sigkill();
	test_file_size_limit();
	test_full_tmpfs();
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			diag("could not remove %s", dir);
	}
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/* The loader against cJSON on real traces: every *.json / *.json.gz under
 * $TLREPLAY_SHARED/traces, then the fuzz seed corpus. For each file the
 * library opens the path (tl_trace_open), the same file is opened again from
 * its raw bytes in memory (tl_trace_open_mem) and must give the same trace,
 * and the decompressed text is read by cJSON and compared event by event
 * (tests/fuzz/differential.h). One TAP line per file. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "../fuzz/differential.h"
#include "tap.h"

#define CORPUS_DIR "tests/fuzz/corpus"

struct file_list {
	char **v;
	size_t n, cap;
};

static struct file_list found;
static bool found_oom;

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

static int add_path(struct file_list *l, const char *path)
{
	char *copy;

	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		char **nv = realloc(l->v, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		l->v = nv;
		l->cap = ncap;
	}
	copy = strdup(path);
	if (!copy)
		return -1;
	l->v[l->n++] = copy;
	return 0;
}

/* nftw callback: trace files only (not .xplane.pb, .tar.gz, .csv, .md). */
static int on_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_F && (ends_with(path, ".json") || ends_with(path, ".json.gz")) &&
	    add_path(&found, path))
		found_oom = true;
	return 0;
}

static int cmp_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_list(struct file_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* The whole file as it is on disk. */
static int read_raw(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *buf = NULL;
	int ret = -1;

	*out = NULL;
	*len = 0;
	if (!f)
		return -1;
	if (fstat(fileno(f), &st) || st.st_size <= 0)
		goto out;
	buf = malloc((size_t)st.st_size);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		goto out;
	*out = buf;
	*len = (size_t)st.st_size;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	fclose(f);
	return ret;
}

/* The JSON text: zlib's gzread inflates gzip (all members) and passes plain
 * files through. */
static int read_text(const char *path, char **out, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	int ret = -1, r;

	*out = NULL;
	*len = 0;
	if (!gz || !buf)
		goto out;
	gzbuffer(gz, 1 << 17);
	for (;;) {
		if (cap - n < (1 << 16)) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				goto out;
			buf = nb;
			cap *= 2;
		}
		r = gzread(gz, buf + n, (unsigned)(cap - n));
		if (r < 0)
			goto out;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*out = buf;
	*len = n;
	buf = NULL;
	ret = 0;
out:
	if (gz)
		gzclose(gz);
	free(buf);
	return ret;
}

/* One file: @show is the name to print. */
static void check_file(const char *path, const char *show)
{
	struct tl_trace *tr = NULL, *mem = NULL;
	struct diff_result res;
	char why[512] = "", *raw = NULL, *text = NULL;
	size_t raw_len, text_len;
	int err, merr = 0;

	err = tl_trace_open(path, NULL, &tr);
	if (err && !diff_check_error(err, why, sizeof(why))) {
		ok(0, "%s: %s", show, why);
		goto out;
	}
	if (!err && !diff_check_api(tr, false, why, sizeof(why))) {
		ok(0, "%s: %s", show, why);
		goto out;
	}
	/* The same bytes from memory: same verdict, same trace. */
	if (read_raw(path, &raw, &raw_len)) {
		ok(0, "%s: cannot read the file", show);
		goto out;
	}
	merr = tl_trace_open_mem(raw, raw_len, path, NULL, &mem);
	if (merr != err) {
		ok(0, "%s: tl_trace_open gives %d, tl_trace_open_mem %d (%s)", show, err, merr,
		   tl_last_error());
		goto out;
	}
	if (!err && !diff_same_traces(tr, mem, why, sizeof(why))) {
		ok(0, "%s: tl_trace_open and tl_trace_open_mem differ: %s", show, why);
		goto out;
	}
	tl_trace_close(mem);
	mem = NULL;
	free(raw);
	raw = NULL;

	if (read_text(path, &text, &text_len)) {
		if (err)
			ok(1, "%s: rejected (%s), and zlib cannot read it either", show,
			   tl_last_error());
		else
			ok(0, "%s: the library loads it but zlib cannot read it", show);
		goto out;
	}
	diff_trace(tr, err, text, text_len, &res);
	switch (res.verdict) {
	case DIFF_MISMATCH:
		ok(0, "%s: %s", show, res.why);
		break;
	case DIFF_NO_REF:
		if (err)
			ok(1, "%s: rejected (%s); cJSON rejects it too", show, tl_last_error());
		else
			skip(res.why);
		break;
	case DIFF_SAME:
		if (err)
			ok(1, "%s: rejected: %s", show, tl_last_error());
		else
			ok(1, "%s: %llu events agree with cJSON (%llu not compared), file == memory",
			   show, (unsigned long long)res.compared, (unsigned long long)res.skipped);
		break;
	}
out:
	tl_trace_close(mem);
	tl_trace_close(tr);
	free(raw);
	free(text);
}

static void check_tree(const char *dir, size_t prefix)
{
	size_t i;

	found_oom = false;
	if (nftw(dir, on_file, 16, FTW_PHYS) || found_oom) {
		ok(0, "cannot list %s", dir);
		return;
	}
	qsort(found.v, found.n, sizeof(*found.v), cmp_paths);
	for (i = 0; i < found.n; i++)
		check_file(found.v[i], found.v[i] + prefix);
	free_list(&found);
}

int main(void)
{
	const char *shared = getenv("TLREPLAY_SHARED");
	char traces[4096];
	struct stat st;
	size_t prefix;

	if (!shared || !*shared)
		skip_all("../shared/traces absent");
	snprintf(traces, sizeof(traces), "%s/traces", shared);
	if (stat(traces, &st) || !S_ISDIR(st.st_mode))
		skip_all("../shared/traces absent");
	prefix = strlen(traces) + 1;
	check_tree(traces, prefix);
	/* The seeds too, when run from the repository root as prove does. */
	if (!stat(CORPUS_DIR, &st) && S_ISDIR(st.st_mode))
		check_tree(CORPUS_DIR, 0);
	else
		diag("%s not found (run from the repository root): seeds not checked", CORPUS_DIR);
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/* Folding results stores into a copy of a trace, for `fold` and `sweep -o`
 * (fold-into.h). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cjson/cJSON.h>
#include <tlreplay/fold.h>
#include <tlreplay/store.h>

#include "replay/fold-into.h"

static int add_record(const cJSON *rec, size_t line, void *ctx)
{
	(void)line;
	return tl_fold_add(ctx, rec);
}

static int file_write(const void *buf, size_t len, void *ctx)
{
	return fwrite(buf, 1, len, ctx) == len ? 0 : -(errno ? errno : EIO);
}

static int gz_error(gzFile gz)
{
	int zerr = Z_OK;

	gzerror(gz, &zerr);
	return zerr == Z_ERRNO && errno ? -errno : -EIO;
}

static int gz_write(const void *buf, size_t len, void *ctx)
{
	const char *p = buf;

	while (len) {
		unsigned n = len > (1u << 30) ? 1u << 30 : (unsigned)len;

		if (gzwrite(ctx, p, n) != (int)n)
			return gz_error(ctx);
		p += n;
		len -= n;
	}
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* -o naming the input (the same file, through any path or link). */
/* The records of this trace in the stores (several when a sweep was spread
 * over machines), or 1 after saying why there are none. */
static int read_store(struct tl_fold *f, const char *const *stores, size_t n, const char *trace)
{
	struct tl_fold_result res = { .sz = sizeof(res) };
	const char *store = stores[0];
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		bool torn = false;

		cli_note_input(stores[i]);
		err = tl_store_read(stores[i], add_record, f, &torn);
		if (err == -ENOENT)
			return cli_error("fold: no results store at %s: nothing has been recorded yet "
					 "(uid, stat, replay and sweep record their results there; --store "
					 "FILE reads another)", stores[i]);
		if (err)
			return cli_lib_error(err);
		if (torn)
			fprintf(stderr, "tlreplay: warning: %s: the last record is torn (a writer was "
				"killed while appending it); it is ignored\n", stores[i]);
	}
	if (n > 1)
		store = "the stores";
	tl_fold_stats(f, &res);
	if (!res.this_trace)
		return cli_error("fold: no results for %s in %s (%llu records, all for other traces)",
				 trace, store, (unsigned long long)res.records);
	if (!res.used)
		return cli_error("fold: %llu results for %s in %s, none ok (%llu failed or unavailable, "
				 "%llu without a uid)", (unsigned long long)res.this_trace, trace, store,
				 (unsigned long long)res.not_ok, (unsigned long long)res.invalid);
	if (res.path_only)
		fprintf(stderr, "tlreplay: warning: %llu results match %s by path only: the file has "
			"changed since they were recorded (results whose op is not at their uid are "
			"left out)\n", (unsigned long long)res.path_only, trace);
	return 0;
}

int fold_into(const struct common_opts *co, struct tl_trace *tr, const char **stores, size_t nstores)
{
	struct tl_fold_result res = { .sz = sizeof(res) };
	struct tl_fold_opts fo = { .sz = sizeof(fo) };
	struct out_fmt o = { 0 };
	struct tl_trace *own = NULL;
	struct tl_fold *f = NULL;
	const char *path, *dflt[1];
	gzFile gz = NULL;
	bool failed = true;
	int rc = 1, err;

	path = tr ? tl_trace_path(tr) : cli_trace_path(co->input);
	if (!path)
		return 1;
	if (!nstores && (dflt[0] = tl_store_default_path())) {
		stores = dflt;
		nstores = 1;
	}
	if (!nstores)
		return cli_error("fold: no results store: give --store FILE or set TLREPLAY_STORE");
	/* -o over the trace or a store (by any name) is refused before the work */
	cli_note_input(path);
	for (size_t k = 0; k < nstores; k++)
		cli_note_input(stores[k]);
	if (cli_check_output(co->output))
		return 1;

	/* the store first: its errors show before a big trace is loaded */
	fo.trace_path = path;
	fo.store = stores[0];
	err = tl_fold_new(&fo, &f);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (read_store(f, stores, nstores, path))
		goto out;
	if (!tr && cli_open_trace(co, &own))
		goto out;
	tr = tr ? tr : own;
	/* the output exists only once the trace has loaded */
	if (out_open(&o, co->output))
		goto out;
	if (o.f != stdout && ends_with(co->output, ".gz")) {
		int fd = dup(fileno(o.f));

		gz = fd >= 0 ? gzdopen(fd, "wb6") : NULL;
		if (!gz) {
			if (fd >= 0)
				close(fd);
			cli_error("%s: cannot start gzip output", co->output);
			goto out;
		}
		gzbuffer(gz, 1u << 20);
	}
	err = tl_fold_write(f, tr, gz ? gz_write : file_write, gz ? (void *)gz : (void *)o.f, &res);
	if (err) {
		rc = cli_lib_error(err);
		if (err == -ENODATA && res.mismatched && !co->capture)
			fprintf(stderr, "tlreplay: results recorded with --capture DIR need the same "
				"--capture DIR here\n");
		goto out;
	}
	if (res.mismatched)
		fprintf(stderr, "tlreplay: warning: %llu results left out: their uid is not their op "
			"in this trace%s\n", (unsigned long long)res.mismatched,
			co->capture ? "" : " (recorded with --capture DIR? fold with it too)");
	if (gz) {
		err = gzclose(gz);
		gz = NULL;
		if (err != Z_OK) {
			cli_error("%s: write failed: %s", co->output,
				  err == Z_ERRNO ? strerror(errno) : "gzip error");
			goto out;
		}
	}
	failed = false;
out:
	if (gz)
		gzclose(gz);
	if (o.f)
		rc = out_close(&o, failed) || failed ? 1 : 0;
	if (!rc)
		fprintf(stderr, "tlreplay: folded %llu results (%llu ops, %llu kernels, %llu counter "
			"events) into %s\n", (unsigned long long)res.used,
			(unsigned long long)res.ops, (unsigned long long)res.kernels,
			(unsigned long long)res.counter_events, co->output);
	tl_trace_close(own);
	tl_fold_free(f);
	return rc;
}

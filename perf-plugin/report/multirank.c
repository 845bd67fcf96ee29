/* SPDX-License-Identifier: MIT */
/* Multi-rank inputs: collecting -i values, expanding directories, reading
 * the ranks several at once with progress on stderr. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "report/multirank.h"

static int mr_add_input(struct mr_inputs *in, const char *path)
{
	if (in->n == in->cap) {
		size_t cap = in->cap ? 2 * in->cap : 8;
		const char **v = realloc(in->v, cap * sizeof(*v));

		if (!v)
			return cli_error("out of memory");
		in->v = v;
		in->cap = cap;
	}
	in->v[in->n++] = path;
	return 0;
}

void mr_inputs_free(struct mr_inputs *in)
{
	free(in->v);
	in->v = NULL;
	in->n = in->cap = 0;
}

static int opt_input(const struct opt *opt, const char *arg, void *obj)
{
	(void)opt;
	return mr_add_input(obj, arg);
}

static int opt_jobs(const struct opt *opt, const char *arg, void *obj)
{
	struct mr_inputs *in = obj;
	unsigned long long v;

	(void)opt;
	if (!parse_u64(arg, &v) || v > 4096)
		return cli_error("%s: bad --jobs '%s' (0 = automatic, else 1..4096)", in->cmd, arg);
	in->jobs = (unsigned)v;
	return 0;
}

const struct opt opts_rank_reading[] = {
	OPT_CALLBACK(0, "jobs", "N", opt_jobs, 0, "read N ranks at once (default: the cores, within memory)"),
	OPT_BOOL(0, "keep-going", struct mr_inputs, keep_going,
		 "leave out ranks that cannot be read, with a warning"),
	OPT_END(),
};

const struct opt opts_rank_input[] = {
	OPT_CALLBACK('i', "input", "PATH", opt_input, 0,
		     "a rank's trace or summary, or a directory of them; repeatable"),
	OPT_INCLUDE(opts_rank_reading, 0),
	OPT_END(),
};

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* Only a regular file is sniffed: reading the head of a pipe would take it
 * from the loader (`-i /dev/stdin`). */
static bool is_summary_file(const char *p)
{
	struct stat st;
	char buf[128];
	gzFile gz;
	int n;

	if (stat(p, &st) || !S_ISREG(st.st_mode))
		return false;
	gz = gzopen(p, "rb");
	if (!gz)
		return false;
	n = gzread(gz, buf, sizeof(buf));
	gzclose(gz);
	return n > 0 && tl_rank_summary_sniff(buf, (size_t)n);
}

bool mr_is_multi(const struct mr_inputs *in)
{
	return in->n > 1 ||
	       (in->n == 1 && ((is_dir(in->v[0]) && !cli_is_trace_dir(in->v[0])) || is_summary_file(in->v[0])));
}

int mr_expand(const struct mr_inputs *in, char ***paths, size_t *n)
{
	char **v = NULL;
	size_t nv = 0, cap = 0, i, k;

	*paths = NULL;
	*n = 0;
	if (!in->n) {
		const char *p = cli_trace_path(NULL);

		if (!p)
			return 1;
		v = malloc(sizeof(*v));
		if (!v || !(v[0] = strdup(p))) {
			free(v);
			return cli_error("out of memory");
		}
		*paths = v;
		*n = 1;
		return 0;
	}
	for (i = 0; i < in->n; i++) {
		char **sub = NULL;
		size_t nsub = 0;
		int err;

		if (is_dir(in->v[i])) {
			err = tl_ranks_list_dir(in->v[i], &sub, &nsub);
			if (err) {
				tl_ranks_paths_free(v, nv);
				return cli_lib_error(err);
			}
		} else {
			sub = malloc(sizeof(*sub));
			if (sub && !(sub[0] = strdup(in->v[i]))) {
				free(sub);
				sub = NULL;
			}
			nsub = 1;
			if (!sub) {
				tl_ranks_paths_free(v, nv);
				return cli_error("out of memory");
			}
		}
		if (nv + nsub > cap) {
			char **nvv;

			cap = (nv + nsub) * 2;
			nvv = realloc(v, cap * sizeof(*v));
			if (!nvv) {
				tl_ranks_paths_free(sub, nsub);
				tl_ranks_paths_free(v, nv);
				return cli_error("out of memory");
			}
			v = nvv;
		}
		for (k = 0; k < nsub; k++)
			v[nv++] = sub[k];
		free(sub);
	}
	*paths = v;
	*n = nv;
	return 0;
}

/* ------------------------------------------------------------------ progress */

struct progress {
	struct timespec t0;
	bool tty, always, never, shown;
	bool keep_going;	/* failures are warnings; else the error at the end says it */
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void progress_cb(size_t done, size_t total, const char *path, int err, const char *msg, void *ctx)
{
	struct progress *p = ctx;

	if (err) {
		if (!p->keep_going)
			return;
		if (p->shown && p->tty)
			fputs("\r\033[K", stderr);
		fprintf(stderr, "tlreplay: warning: left out %s: %s\n", path, msg ? msg : strerror(-err));
		return;
	}
	if (p->never || (!p->tty && !p->always) || (!p->always && since(&p->t0) < 1.0))
		return;
	p->shown = true;
	fprintf(stderr, "%stlreplay: read %zu of %zu ranks (%s)%s", p->tty ? "\r\033[K" : "", done, total,
		cli_base(path), p->tty ? "" : "\n");
	fflush(stderr);
}

int mr_open(const struct mr_inputs *in, struct tl_rankset **out)
{
	const char *mode = getenv("TLREPLAY_PROGRESS");
	struct progress p = { .tty = isatty(2), .always = mode && !strcmp(mode, "always"),
			      .never = mode && !strcmp(mode, "never"), .keep_going = in->keep_going };
	struct tl_ranks_opts ro = { .sz = sizeof(ro), .jobs = in->jobs, .keep_going = in->keep_going,
				    .progress = progress_cb, .progress_ctx = &p };
	char **paths = NULL;
	size_t n = 0, i, nord = 0;
	int err;

	*out = NULL;
	if (mr_expand(in, &paths, &n))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &p.t0);
	err = tl_ranks_open((const char *const *)paths, n, &ro, out);
	if (p.shown && p.tty)
		fputs("\r\033[K", stderr);
	tl_ranks_paths_free(paths, n);
	if (err)
		return cli_lib_error(err);
	for (i = 0; i < tl_rankset_n(*out); i++)
		nord += tl_rank_summary_info(tl_rankset_get(*out, i))->rank_from == TL_RANK_FROM_ORDER;
	if (nord && tl_rankset_n(*out) > 1)
		fprintf(stderr, "tlreplay: note: %zu input%s without a rank (no distributedInfo.rank, "
			"no rankN/workerN in the name): numbered in input order\n", nord, nord > 1 ? "s" : "");
	return 0;
}

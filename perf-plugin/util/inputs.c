/* SPDX-License-Identifier: MIT */
/* What a command reads: the trace (-i, $TLREPLAY_TRACE, `tlreplay open`'s
 * remembered one, a directory that stands for its trace), loaded with
 * progress on a terminal, its capture merged and its step kept; small files
 * read whole within their limit; and the files it read, noted so that no
 * output is written over one (cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include <tlreplay/steps.h>

#include "util/cli.h"

/* ------------------------------------------------------------------ trace */

char *cli_state_file(void)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *p = NULL;

	if (xdg && *xdg) {
		if (asprintf(&p, "%s/tlreplay/current-trace", xdg) < 0)
			return NULL;
	} else if (home && *home) {
		if (asprintf(&p, "%s/.local/state/tlreplay/current-trace", home) < 0)
			return NULL;
	}
	return p;
}

char *cli_read_state(bool *bad)
{
	char *file = cli_state_file(), *text = NULL;
	size_t n = 0;
	int err;

	*bad = false;
	if (!file)
		return NULL;
	/* our own file of our own directory, one path long: a link, a FIFO
	 * (which would hang here) or a device in its place is said, not read */
	err = tl_input_read(file, "the remembered trace file", TL_INPUT_PART, PATH_MAX + 1, &text, &n);
	free(file);
	if (err) {
		if (err != -ENOENT) {
			cli_lib_error(err);
			*bad = true;
		}
		return NULL;
	}
	n = strcspn(text, "\r\n");
	text[n] = 0;
	if (!n) {
		free(text);
		return NULL;
	}
	return text;
}

/* Directories that stand for their one trace, each listed once per process
 * (mr_is_multi() asks before the trace is opened). */
struct dir_one {
	char *dir, *trace;
};
static struct dir_one *dir_ones;
static size_t ndir_ones;

static void free_dir_ones(void)
{
	size_t i;

	for (i = 0; i < ndir_ones; i++) {
		free(dir_ones[i].dir);
		free(dir_ones[i].trace);
	}
	free(dir_ones);
}

/* Takes @trace; NULL after printing why. */
static const char *remember_dir(const char *dir, char *trace)
{
	struct dir_one *v = realloc(dir_ones, (ndir_ones + 1) * sizeof(*v));
	char *d = strdup(dir);

	if (!v || !d) {
		free(d);
		free(trace);
		if (v)
			dir_ones = v;
		cli_error("out of memory");
		return NULL;
	}
	if (!ndir_ones)
		atexit(free_dir_ones);
	dir_ones = v;
	dir_ones[ndir_ones++] = (struct dir_one){ d, trace };
	return trace;
}

const char *cli_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static bool summary_name(const char *p)
{
	size_t n = strlen(p);

	return n >= 6 && !strcmp(p + n - 6, ".jsonl");
}

/* cli_dir_trace(), saying why only when @say. */
static const char *dir_trace(const char *path, bool say)
{
	struct stat st;
	char **paths = NULL;
	size_t n = 0, i;
	const char *r = path;

	for (i = 0; path && i < ndir_ones; i++)
		if (!strcmp(dir_ones[i].dir, path))
			return dir_ones[i].trace;
	if (!path || stat(path, &st) || !S_ISDIR(st.st_mode) || tl_ranks_list_dir(path, &paths, &n))
		return path;	/* not a directory, or none in it: the loader says so */
	if (n == 1 && !summary_name(paths[0])) {
		r = remember_dir(path, paths[0]);
		paths[0] = NULL;
	} else if (n > 1) {
		if (say)
			cli_error("%s: is a directory of %zu traces or rank summaries (%s, %s%s): name one with -i, "
				  "or give the directory to breakdown, collectives or summarize (a rank each)",
				  path, n, cli_base(paths[0]), cli_base(paths[1]), n > 2 ? ", ..." : "");
		r = NULL;
	}
	tl_ranks_paths_free(paths, n);
	return r;
}

const char *cli_dir_trace(const char *path)
{
	return dir_trace(path, true);
}

bool cli_is_trace_dir(const char *path)
{
	const char *t = dir_trace(path, false);

	return t && t != path;
}

const char *cli_trace_path(const char *opt_i)
{
	static char *saved;
	const char *env = getenv("TLREPLAY_TRACE");

	if (opt_i)
		return cli_dir_trace(opt_i);
	if (env && *env)
		return cli_dir_trace(env);
	if (!saved) {
		bool bad;

		saved = cli_read_state(&bad);
		if (bad)
			return NULL;
	}
	if (saved)
		return saved;
	cli_error("no trace given: use -i TRACE, set TLREPLAY_TRACE, or run `tlreplay open TRACE`");
	return NULL;
}

struct progress {
	const char *path;
	double t0, after;
	bool shown, tty;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One progress line: "loading X: 40% (12 of 30 MB)", or what @verb and
 * @unit say. Only loads that take a while earn one. */
static void progress_line(struct progress *p, const char *verb, const char *unit, uint64_t done,
			  uint64_t total)
{
	if (!p->shown && now() - p->t0 < p->after)
		return;
	p->shown = true;
	fprintf(stderr, "%stlreplay: %s %s: %3.0f%% (%llu of %llu MB%s)%s", p->tty ? "\r" : "", verb,
		p->path, total ? 100.0 * (double)done / (double)total : 100.0,
		(unsigned long long)(done >> 20), (unsigned long long)(total >> 20), unit,
		p->tty ? "" : "\n");
	fflush(stderr);
}

static void progress_cb(uint64_t done, uint64_t total, void *ctx)
{
	progress_line(ctx, "loading", "", done, total);
}

/* While a gzip trace inflates: its compressed bytes. */
static void inflate_cb(uint64_t done, uint64_t total, void *ctx)
{
	progress_line(ctx, "inflating", " of gzip", done, total);
}

/* Progress on stderr for loads that take over a second, when stderr is a
 * terminal. TLREPLAY_PROGRESS=always shows it for every load (one line per
 * step when stderr is not a terminal), =never hides it. */
int cli_load(const char *path, struct tl_trace **out)
{
	return cli_load_ex(path, true, out);
}

int cli_load_ex(const char *path, bool progress, struct tl_trace **out)
{
	struct tl_open_opts opts = { .sz = sizeof(opts), .rank = -1 };
	struct progress p = { .path = path, .t0 = now(), .after = 1.0, .tty = isatty(2) };
	const char *mode = getenv("TLREPLAY_PROGRESS");
	bool always = mode && !strcmp(mode, "always"), never = mode && !strcmp(mode, "never");
	int err;

	if (always)
		p.after = 0;
	if (progress && !never && (always || p.tty)) {
		opts.progress = progress_cb;
		opts.inflate_progress = inflate_cb;
		opts.progress_ctx = &p;
	}
	err = tl_trace_open(path, &opts, out);
	cli_note_input(path);
	if (p.shown && p.tty)
		fputs("\r\033[K", stderr);
	if (err)
		return cli_lib_error(err);
	return 0;
}

int cli_merge_capture(struct tl_trace *tr, const char *dir)
{
	struct tl_capture_result res = { .sz = sizeof(res) };
	int err;

	if (!dir)
		return 0;
	err = tl_trace_merge_capture(tr, dir, &res);
	if (err)
		return cli_lib_error(err);
	if (!res.graph_launches && res.failed)
		fprintf(stderr, "tlreplay: warning: %s: the trace has no iteration annotation and the captures "
			"are of several batch sizes: %u graph launches left unmerged\n", dir, res.failed);
	else if (!res.graph_launches)
		fprintf(stderr, "tlreplay: warning: %s: no graph launch to merge (none in the trace, or no "
			"capture); nothing merged\n", dir);
	else if (res.whole_trace && !res.failed)
		fprintf(stderr, "tlreplay: note: the trace has no iteration annotation (execute_..., step[...]): "
			"its %u graph launches were merged with the one captured batch size in %s\n",
			res.graph_launches, dir);
	else if (res.failed)
		fprintf(stderr, "tlreplay: warning: %u of %u graph launches could not be matched with a "
			"capture in %s (TLREPLAY_LOG_LEVEL=warn says why)\n", res.failed,
			res.graph_launches, dir);
	return 0;
}

/* --step N: keep that iteration only (no-op if NULL). 0, or 1 after printing why. */
static int cli_keep_step(struct tl_trace *tr, const char *step)
{
	char *end;
	long long n;
	int err;

	if (!step)
		return 0;
	errno = 0;
	n = strtoll(step, &end, 10);
	if (end == step || *end || errno || n < 0)
		return cli_error("bad --step '%s' (an iteration number, as `tlreplay steps` lists them)", step);
	err = tl_trace_keep_step(tr, n);
	return err ? cli_lib_error(err) : 0;
}

/* --link RULE, and the note that TraceLens links this trace otherwise. 0, or
 * 1 after printing why. */
static int cli_link_rule(struct tl_trace *tr, const char *rule)
{
	uint64_t legacy;

	if (rule && strcmp(rule, "tlreplay")) {
		if (strcmp(rule, "tracelens"))
			return cli_error("--link %s: not a rule (tlreplay or tracelens)", rule);
		return tl_trace_set_tracelens_links(tr, true) ? cli_lib_error(-EINVAL) : 0;
	}
	legacy = tl_trace_legacy_flows(tr);
	if (legacy && !rule)
		fprintf(stderr,
			"tlreplay: note: %s: %llu launch flows are async_cpu_to_gpu (older Kineto), which TraceLens "
			"does not follow: its numbers leave their GPU events unlinked (--link tracelens gives them)\n",
			tl_trace_path(tr), (unsigned long long)legacy);
	return 0;
}

/* PyTorch's CUDA-graph annotations, when the trace has them: graph kernels
 * get the ops their capture named. 0, or 1 after printing why. */
static int cli_graph_annotations(struct tl_trace *tr)
{
	size_t ops, kernels;
	int err = tl_trace_apply_graph_annotations(tr, &ops, &kernels);

	if (err)
		return cli_lib_error(err);
	if (ops)
		fprintf(stderr,
			"tlreplay: note: %s: %zu graph kernels belong to %zu ops named by PyTorch's CUDA-graph "
			"annotations\n",
			tl_trace_path(tr), kernels, ops);
	return 0;
}

/* --phase P or --steady: keep those iterations (no-op without either). */
static int cli_keep_iterations(struct tl_trace *tr, const struct common_opts *co)
{
	int p = tl_phase_of_name(co->phase);
	int err;

	if (!co->phase && !co->steady)
		return 0;
	if ((co->step != NULL) + (co->phase != NULL) + co->steady > 1)
		return cli_error("--step, --phase and --steady: give one of them");
	if (co->phase && !p)
		return cli_error("bad --phase '%s' (prefill, decode or mixed)", co->phase);
	err = co->steady ? tl_trace_keep_steady(tr) : tl_trace_keep_phase(tr, p);
	return err ? cli_lib_error(err) : 0;
}

int cli_open_trace(const struct common_opts *co, struct tl_trace **tr)
{
	const char *path = cli_trace_path(co->input);

	*tr = NULL;
	if (!path || cli_load(path, tr))
		return 1;
	if (cli_link_rule(*tr, co->link) || cli_merge_capture(*tr, co->capture) ||
	    (!co->capture && cli_graph_annotations(*tr)) || cli_keep_iterations(*tr, co) ||
	    cli_keep_step(*tr, co->step)) {
		tl_trace_close(*tr);
		*tr = NULL;
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ inputs */

/* The files this command read (its traces, IR files, results stores), by
 * device and inode: an output that is one of them, by any path or link, is
 * refused before anything is written (fold -o STORE replaced the machine's
 * record of every replay with a trace). */
#define CLI_MAX_INPUTS 64
static struct {
	dev_t dev;
	ino_t ino;
	char *path;
} inputs[CLI_MAX_INPUTS];
static size_t ninputs;

void cli_note_input(const char *path)
{
	struct stat st;
	size_t i;

	if (!path || stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	for (i = 0; i < ninputs; i++)
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
			return;
	if (ninputs < CLI_MAX_INPUTS && (inputs[ninputs].path = strdup(path))) {
		inputs[ninputs].dev = st.st_dev;
		inputs[ninputs].ino = st.st_ino;
		ninputs++;
	}
}

int cli_check_output(const char *path)
{
	struct stat st;
	size_t i;

	if (!path || !strcmp(path, "-") || stat(path, &st))
		return 0;
	for (i = 0; i < ninputs; i++)
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
			return cli_error("%s: is %s, an input of this command: tlreplay never writes over "
					 "its inputs (give another output)", path, inputs[i].path);
	return 0;
}

char *cli_read_file(const char *path, const char *what, unsigned flags, size_t *len)
{
	char *buf;
	int err;

	cli_note_input(path);	/* an output by the same name is refused */
	err = tl_input_read(path, what, flags, 0, &buf, len);

	if (err) {
		errno = -err;
		return NULL;
	}
	return buf;
}

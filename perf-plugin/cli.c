/* SPDX-License-Identifier: MIT */
/* Helpers shared by the tlreplay subcommands. */
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

#include "cli.h"

/* One line whatever the message quotes (a path or an event list typed with
 * a newline in it): scripts read the last line of stderr. */
int cli_error(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tl_one_line(buf, sizeof(buf));
	fprintf(stderr, "tlreplay: %s\n", buf);
	return 1;
}

int cli_lib_error(int err)
{
	const char *m = tl_last_error();

	if (m && *m)
		return cli_error("%s", m);
	return cli_error("%s", strerror(err < 0 ? -err : err));
}

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

int cli_open_trace(const struct common_opts *co, struct tl_trace **tr)
{
	const char *path = cli_trace_path(co->input);

	*tr = NULL;
	if (!path || cli_load(path, tr))
		return 1;
	if (cli_merge_capture(*tr, co->capture) || cli_keep_step(*tr, co->step)) {
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

/* ------------------------------------------------------------------ output */

int out_open(struct out_fmt *o, const char *path)
{
	struct stat st;
	int fd, err;

	o->f = stdout;
	o->path = NULL;
	o->out = (struct tl_output){ .fd = -1, .slot = -1 };
	if (!path || !strcmp(path, "-"))
		return 0;
	if (cli_check_output(path))
		return 1;
	/* a device or FIFO (/dev/null, a pipe): written in place; renaming a
	 * file over it would replace the device */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return cli_error("%s: is a directory", path);
		o->f = fopen(path, "w");
		if (!o->f) {
			o->f = stdout;
			return cli_error("%s: %s", path, strerror(errno));
		}
		o->path = path;
		return 0;
	}
	/* an unnamed file that gets its name when whole (tlreplay/output.h) */
	err = tl_output_open(&o->out, path);
	if (err)
		return cli_lib_error(err);
	fd = dup(o->out.fd);
	o->f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!o->f) {
		if (fd >= 0)
			close(fd);
		tl_output_abort(&o->out);
		o->f = stdout;
		return cli_error("%s: %s", path, strerror(errno));
	}
	o->path = path;
	return 0;
}
int out_open_opts(struct out_fmt *o, const struct common_opts *co)
{
	if (out_open(o, co->output))
		return 1;
	o->sep = co->sep;
	o->json = co->json;
	return 0;
}

int out_close(struct out_fmt *o, bool failed)
{
	int rc = 0;

	if (!o->f)
		return 0;
	if (o->f == stdout) {
		if (fflush(stdout) || ferror(stdout))
			rc = errno == EPIPE ? 0 : cli_error("error writing output: %s", strerror(errno));
		return failed ? 1 : rc;
	}
	if (fflush(o->f) || ferror(o->f)) {
		rc = cli_error("%s: write failed: %s", o->path, strerror(errno));
		failed = true;
	}
	if (fclose(o->f) && !rc) {
		rc = cli_error("%s: write failed: %s", o->path, strerror(errno));
		failed = true;
	}
	o->f = NULL;
	if (o->out.fd < 0)	/* written in place */
		return failed || rc ? 1 : 0;
	if (failed)
		tl_output_abort(&o->out);
	else if (tl_output_commit(&o->out))
		rc = cli_lib_error(-EIO);
	return failed ? 1 : rc;
}

void fmt_pyfloat(char *buf, size_t n, double v)
{
	tl_fmt_pyfloat(buf, n, v);
}

void out_field(struct out_fmt *o, const char *s, bool last)
{
	if (!s)
		s = "";
	if (strpbrk(s, "\"\n\r") || (o->sep && *o->sep && strstr(s, o->sep))) {
		fputc('"', o->f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', o->f);
			fputc(*s, o->f);
		}
		fputc('"', o->f);
	} else {
		fputs(s, o->f);
	}
	fputs(last ? "\n" : o->sep, o->f);
}

void out_num(struct out_fmt *o, double v, bool last)
{
	char b[64];

	fmt_pyfloat(b, sizeof(b), v);
	if (o->json)
		fputs(b, o->f);
	else
		out_field(o, b, last);
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

void fmt_us(char *buf, size_t n, double us)
{
	double a = fabs(us);

	if (a >= 1e6)
		snprintf(buf, n, "%.3f s", us / 1e6);
	else if (a >= 1e3)
		snprintf(buf, n, "%.3f ms", us / 1e3);
	else
		snprintf(buf, n, "%.3f us", us);
}

int cli_check_format(const char *cmd, const struct common_opts *co)
{
	if (co->sep && co->json)
		return cli_error("%s: -x and -j are exclusive", cmd);
	return 0;
}

int cli_no_sep(const char *cmd, const struct common_opts *co)
{
	if (co->sep)
		return cli_error("%s: -x does not apply (use -j for machine-readable output)", cmd);
	return 0;
}

int cli_no_args(const char *cmd, int argc, char **argv)
{
	if (optind < argc)
		return cli_error("%s: unexpected argument '%s' (the trace goes after -i)", cmd,
				 argv[optind]);
	return 0;
}

/* Containers that fit in the line are written compact; others one member
 * per line, indented by two spaces per level. */
static void json_pretty_at(FILE *f, const cJSON *v, int indent)
{
	char *flat = cJSON_PrintUnformatted(v);
	const cJSON *x;
	bool obj = cJSON_IsObject(v);

	if (!flat)
		return;
	if ((!cJSON_IsArray(v) && !obj) || !v->child || strlen(flat) + (size_t)indent <= 100) {
		fputs(flat, f);
		free(flat);
		return;
	}
	free(flat);
	fputc(obj ? '{' : '[', f);
	for (x = v->child; x; x = x->next) {
		fprintf(f, "\n%*s", indent + 2, "");
		if (obj) {
			json_str(f, x->string);
			fputs(": ", f);
		}
		json_pretty_at(f, x, indent + 2);
		if (x->next)
			fputc(',', f);
	}
	fprintf(f, "\n%*s%c", indent, "", obj ? '}' : ']');
}

void json_pretty(FILE *f, const cJSON *v)
{
	json_pretty_at(f, v, 0);
	fputc('\n', f);
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

const char *cli_beside_exe(const char *const *rel, size_t n)
{
	static char path[PATH_MAX + 64];
	char dir[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	size_t i;

	if (len <= 0)
		return NULL;
	dir[len] = 0;
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = 0;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, rel[i]);
		if (!access(path, R_OK))
			return path;
	}
	return NULL;
}

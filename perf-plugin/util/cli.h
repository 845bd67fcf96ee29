/* SPDX-License-Identifier: MIT */
/* Shared pieces of the tlreplay command: errors, the options of the analysis
 * commands, trace resolution (-i, $TLREPLAY_TRACE, `tlreplay open`), load
 * progress, and the output formats (human table, -x SEP, -j JSON lines).
 * Defined in util/cli.c (errors, option checks), util/inputs.c (traces,
 * small files and the inputs noted), util/outputs.c (outputs and formatting) and
 * util/common-opts.c (the option tables). */
#ifndef TLREPLAY_CLI_H
#define TLREPLAY_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <tlreplay/output.h>
#include <tlreplay/tlreplay.h>

#include "util/parse-options.h"

/* Output format chosen with -x SEP / -j. */
struct out_fmt {
	const char *sep;	/* -x: field separator, NULL for human tables */
	bool json;		/* -j */
	FILE *f;		/* -o FILE or stdout */
	const char *path;	/* -o FILE, written atomically on close */
	struct tl_output out;	/* its file until then (out.fd < 0: written in place) */
};

/* The first of the paths @rel (relative to the directory of this tlreplay:
 * build tree, bundle, install) that can be read; a static buffer, or NULL. */
const char *cli_beside_exe(const char *const *rel, size_t n);
/* Print "tlreplay: <msg>" on stderr. Returns 1 (the usage/failure exit code). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The message for a failed library call: tl_last_error(), else strerror. */
int cli_lib_error(int err);
/* Remember @path as an input of this command (a regular file read). */
void cli_note_input(const char *path);
/* 1 after saying why when @path is one of the inputs noted (the same file by
 * any name), else 0. out_open() asks; other writers ask before writing. */
int cli_check_output(const char *path);
struct common_opts;

/* Trace to use: -i value if given, else $TLREPLAY_TRACE, else the one saved
 * by `tlreplay open`. Returns NULL (after printing why) if there is none. */
const char *cli_trace_path(const char *opt_i);
/* A directory that holds exactly one trace (JAX writes plugins/profile/RUN/
 * HOST.xplane.pb) stands for that trace: its path (owned by the CLI until
 * exit); any other path comes back as given. NULL (after printing why) for
 * a directory of several traces, which only the multi-rank commands take. */
const char *cli_dir_trace(const char *path);
/* "worker3.json" of "run/worker3.json": the file's name, for messages and tables. */
const char *cli_base(const char *path);
/* Whether @path is such a directory of one trace (says nothing). */
bool cli_is_trace_dir(const char *path);
/* Load a trace with progress on stderr when it is a terminal. */
int cli_load(const char *path, struct tl_trace **out);
/* ... with no progress unless @progress (one of several loads at once). */
int cli_load_ex(const char *path, bool progress, struct tl_trace **out);
/* First thing in main: once, executes the program again with glibc's
 * huge-page tunable set, where that helps (hugepages.c says when); the
 * second start restores the environment and returns. */
void cli_hugepages(char **argv);
/* The trace of -i (else $TLREPLAY_TRACE, else `tlreplay open`), loaded with
 * progress and with --capture merged. Returns 0, or 1 after printing why. */
int cli_open_trace(const struct common_opts *co, struct tl_trace **tr);
/* --capture DIR: merge the graph-capture traces in DIR (no-op if NULL).
 * Returns 0 or 1 after printing the error. */
int cli_merge_capture(struct tl_trace *tr, const char *dir);
/* Where `tlreplay open` remembers the trace. Caller frees. */
char *cli_state_file(void);
/* The trace it names (malloc'ed), NULL when none; *@bad set after saying
 * why when the file is there but cannot be read as one. */
char *cli_read_state(bool *bad);

/* -o FILE: output goes to a temporary file renamed over FILE at the end. */
int out_open(struct out_fmt *o, const char *path);
/* out_open() for the -o FILE of @co, with its -x SEP and -j. */
int out_open_opts(struct out_fmt *o, const struct common_opts *co);
/* Flush and publish (or discard on @failed). Returns 0 or 1 on write error. */
int out_close(struct out_fmt *o, bool failed);

/* A double the way Python's repr() writes it (shortest round-trip, ".0"). */
void fmt_pyfloat(char *buf, size_t n, double v);
/* Field for -x output: quoted if it contains the separator, quotes or newlines. */
void out_field(struct out_fmt *o, const char *s, bool last);
/* A number as Python's repr writes it: bare in a JSON object (-j), else one
 * -x field through out_field(). */
void out_num(struct out_fmt *o, double v, bool last);
/* JSON string (with quotes) to @f. */
void json_str(FILE *f, const char *s);
/* The whole file at @path (NUL-terminated, malloc'ed), a @what read as
 * tl_input_read() does with @flags (TL_INPUT_*: within the small-input
 * limit); NULL with errno set and tl_last_error() saying why. */
char *cli_read_file(const char *path, const char *what, unsigned flags, size_t *len);
/* @v as indented JSON (compact where it fits in a line), newline-terminated. */
struct cJSON;
void json_pretty(FILE *f, const struct cJSON *v);
/* Human-readable duration in microseconds ("12.3 us", "4.56 ms", "1.2 s"). */
void fmt_us(char *buf, size_t n, double us);

#define TL_ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

/* The options every analysis subcommand takes. */
struct common_opts {
	const char *input;	/* -i TRACE */
	const char *sep;	/* -x SEP */
	bool json;		/* -j */
	const char *output;	/* -o FILE */
	const char *capture;	/* --capture DIR */
	const char *step;	/* --step N: one iteration only (tl_trace_keep_step()) */
	const char *phase;	/* --phase prefill|decode|mixed: those iterations (tl_trace_keep_phase()) */
	bool steady;		/* --steady: the steady-state iterations (tl_trace_keep_steady()) */
	const char *link;	/* --link tlreplay|tracelens: how launches link to GPU events */
};

/* Option groups over struct common_opts (common-opts.c). */
extern const struct opt opts_trace_input[];	/* -i, --capture */
extern const struct opt opts_output_format[];	/* -x, -j, -o */
/* What the analysis commands take, in their help's order: -i -x -j -o -h --capture */
extern const struct opt opts_analysis[];
/* ... and the navigation and replay commands: -i -j -o -h --capture */
extern const struct opt opts_nav[];
/* ... and those with no -x output (info, show, tree): -x is taken, for
 * cli_no_sep() to say so */
extern const struct opt opts_nav_json[];

/* Help words of -i and --capture that more than one table shows. */
#define TRACE_INPUT_HELP \
	"trace to read (.json[.gz], or JAX .xplane.pb[.gz]); default\n" \
	"$TLREPLAY_TRACE, then the trace saved by `tlreplay open`"
#define TRACE_INPUT_HELP_BRIEF "trace to read; default $TLREPLAY_TRACE, then `tlreplay open`'s"
#define CAPTURE_HELP_LONG \
	"merge the CUDA/HIP-graph capture traces in DIR first, so that\n" \
	"graph kernels belong to the ops that captured them"

/* After opts_parse(): fail if arguments are left. */
int cli_no_args(const char *cmd, int argc, char **argv);
/* -x and -j both given: an error. Returns 0, or 1 after saying so. */
int cli_check_format(const char *cmd, const struct common_opts *co);
/* -x given to a command without it: an error. Returns 0, or 1 after saying so. */
int cli_no_sep(const char *cmd, const struct common_opts *co);

#endif

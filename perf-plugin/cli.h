/* SPDX-License-Identifier: MIT */
/* Shared pieces of the tlreplay command: the subcommand table, option
 * handling, trace resolution (-i, $TLREPLAY_TRACE, `tlreplay open`), load
 * progress, and the output formats (human table, -x SEP, -j JSON lines). */
#ifndef TLREPLAY_CLI_H
#define TLREPLAY_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <tlreplay/tlreplay.h>

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *usage;	/* full --help text */
};

/* The table, in help order (tlreplay.c). */
extern const struct cmd tl_cmds[];

/* Output format chosen with -x SEP / -j. */
struct out_fmt {
	const char *sep;	/* -x: field separator, NULL for human tables */
	bool json;		/* -j */
	FILE *f;		/* -o FILE or stdout */
	const char *path;	/* -o FILE, written atomically on close */
	char *tmp_path;
};

/* Print "tlreplay: <msg>" on stderr. Returns 1 (the usage/failure exit code). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The message for a failed library call: tl_last_error(), else strerror. */
int cli_lib_error(int err);
/* Print the usage of @cmd to @f. */
void cli_usage(const struct cmd *cmd, FILE *f);
/* Find a subcommand by name or unambiguous prefix; NULL if none. */
const struct cmd *cli_find_cmd(const char *name, bool *ambiguous);

struct common_opts;

/* Trace to use: -i value if given, else $TLREPLAY_TRACE, else the one saved
 * by `tlreplay open`. Returns NULL (after printing why) if there is none. */
const char *cli_trace_path(const char *opt_i);
/* A directory that holds exactly one trace (JAX writes plugins/profile/RUN/
 * HOST.xplane.pb) stands for that trace: its path (owned by the CLI until
 * exit); any other path comes back as given. NULL (after printing why) for
 * a directory of several traces, which only the multi-rank commands take. */
const char *cli_dir_trace(const char *path);
/* Whether @path is such a directory of one trace (says nothing). */
bool cli_is_trace_dir(const char *path);
/* Load a trace with progress on stderr when it is a terminal. */
int cli_load(const char *path, struct tl_trace **out);
/* The trace of -i (else $TLREPLAY_TRACE, else `tlreplay open`), loaded with
 * progress and with --capture merged. Returns 0, or 1 after printing why. */
int cli_open_trace(const struct common_opts *co, struct tl_trace **tr);
/* --capture DIR: merge the graph-capture traces in DIR (no-op if NULL).
 * Returns 0 or 1 after printing the error. */
int cli_merge_capture(struct tl_trace *tr, const char *dir);
/* Where `tlreplay open` remembers the trace. Caller frees. */
char *cli_state_file(void);

/* -o FILE: output goes to a temporary file renamed over FILE at the end. */
int out_open(struct out_fmt *o, const char *path);
/* Flush and publish (or discard on @failed). Returns 0 or 1 on write error. */
int out_close(struct out_fmt *o, bool failed);

/* A double the way Python's repr() writes it (shortest round-trip, ".0"). */
void fmt_pyfloat(char *buf, size_t n, double v);
/* Field for -x output: quoted if it contains the separator, quotes or newlines. */
void out_field(struct out_fmt *o, const char *s, bool last);
/* JSON string (with quotes) to @f. */
void json_str(FILE *f, const char *s);
/* The whole file at @path (NUL-terminated, malloc'ed), gunzipped if asked
 * and it is gzip; NULL with errno set (EBADMSG: corrupt gzip). */
char *cli_read_file(const char *path, bool gunzip, size_t *len);
/* @v as indented JSON (compact where it fits in a line), newline-terminated. */
struct cJSON;
void json_pretty(FILE *f, const struct cJSON *v);
/* Human-readable duration in microseconds ("12.3 us", "4.56 ms", "1.2 s"). */
void fmt_us(char *buf, size_t n, double us);

/* Parse a non-negative integer (UIDs, counts). */
bool parse_u64(const char *s, unsigned long long *v);

#define TL_ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

/* The options every analysis subcommand takes. */
struct common_opts {
	const char *input;	/* -i TRACE */
	const char *sep;	/* -x SEP */
	bool json;		/* -j */
	const char *output;	/* -o FILE */
	const char *capture;	/* --capture DIR */
};

struct option;
/* Parse -i/-x/-j/-o/-h plus @extra (short forms in @shorts, e.g. "n:") (handled by @on_extra, which returns 0 if
 * it took the option). Returns 0 to go on, -1 after printing --help, or 1
 * after printing a usage error. */
int cli_parse(int argc, char **argv, const char *cmd, struct common_opts *co, const char *shorts,
	      const struct option *extra, int (*on_extra)(int c, void *ctx), void *ctx);
/* After cli_parse(): fail if positional arguments are left. */
int cli_no_args(const char *cmd, int argc, char **argv);

#endif

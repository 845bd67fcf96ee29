/* SPDX-License-Identifier: MIT */
/* The option tables of the tlreplay subcommands and the one parser that reads
 * them, after tools/lib/subcmd/parse-options.h: a subcommand declares its
 * options once, as rows, and parsing, --help and --list-opts all come from
 * those rows, so that they cannot disagree.
 *
 * A row names an option (short letter, long name, the metavar of its
 * argument), where its value goes (a field, as an offset into the struct the
 * command parses into), and its help. Options that several commands take
 * live in shared groups (trace input, output format, replay options, IR
 * selection), which a table takes by reference: all of a group with
 * OPT_INCLUDE, one of its options with OPT_USE. Both give the offset of the
 * group's struct inside the command's, and OPT_USE may give the option other
 * help words where a command means something narrower by it.
 *
 * Parsing is getopt_long's (argument permutation, unambiguous prefixes of
 * long options, --opt=value, its messages); the tables replace the getopt
 * arrays that each command used to build by hand.
 */
#ifndef TLREPLAY_PARSE_OPTIONS_H
#define TLREPLAY_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>	/* optind */

enum opt_kind {
	OPT_KIND_END,		/* the end of a table */
	OPT_KIND_BOOL,		/* no argument: the bool field becomes true */
	OPT_KIND_STRING,	/* the argument is kept (argv's string) in a const char * field */
	OPT_KIND_U64,		/* the argument, a whole number >= 0, in an unsigned long long field */
	OPT_KIND_STRINGS,	/* repeatable: each argument appended to a struct opt_strings field */
	OPT_KIND_CALLBACK,	/* cb() takes the argument (NULL for no argument) */
	OPT_KIND_HELP,		/* -h, --help: print the command's help */
	OPT_KIND_TEXT,		/* help lines among the options, printed as they are */
	OPT_KIND_INCLUDE,	/* every row of a group */
	OPT_KIND_USE,		/* one option of a group, by its long name */
};

/* Row flags. */
#define OPT_HIDDEN	0x1	/* parsed, but neither in --help nor in --list-opts */
#define OPT_NOSHORT	0x2	/* OPT_USE: without the group option's short letter */
#define OPT_SAME_LINE	0x4	/* --help shows it on the line of the row before ("--from US, --to US") */

struct opt;

/* The arguments of a repeatable option, in order (argv's strings); the
 * caller frees v (opt_strings_free()), after a failed parse too. */
struct opt_strings {
	const char **v;
	size_t n, cap;
};
void opt_strings_free(struct opt_strings *l);

/* Takes the argument @arg (NULL for an option without one) into @obj, the
 * struct of the row's table. Returns 0, or 1 after printing one error line. */
typedef int (*opt_cb)(const struct opt *opt, const char *arg, void *obj);

struct opt {
	enum opt_kind kind;
	int short_name;		/* 0: none */
	const char *long_name;	/* NULL: none (OPT_TEXT) */
	const char *argh;	/* the argument's metavar; NULL: the option takes none
				 * (OPT_USE: NULL keeps the group's) */
	const char *help;	/* lines separated by '\n'; OPT_USE: NULL keeps the group's */
	size_t off;		/* BOOL, STRING, U64, STRINGS: the field; INCLUDE, USE: the group's struct */
	opt_cb cb;
	long value;		/* for cb(): which of several options that share it */
	const struct opt *group;	/* INCLUDE, USE */
	unsigned flags;
};

/* The offset of FIELD in TYPE, refused at compile time unless FIELD has type T. */
#define OPT_FIELD(TYPE, FIELD, T) _Generic(((TYPE *)0)->FIELD, T: offsetof(TYPE, FIELD))

#define OPT_BOOL(s, l, TYPE, FIELD, h) \
	{ .kind = OPT_KIND_BOOL, .short_name = (s), .long_name = (l), .help = (h), \
	  .off = OPT_FIELD(TYPE, FIELD, bool) }
#define OPT_STRING(s, l, a, TYPE, FIELD, h) \
	{ .kind = OPT_KIND_STRING, .short_name = (s), .long_name = (l), .argh = (a), .help = (h), \
	  .off = OPT_FIELD(TYPE, FIELD, const char *) }
/* A bad number is "CMD: bad --LONG 'ARG'". */
#define OPT_U64(s, l, a, TYPE, FIELD, h) \
	{ .kind = OPT_KIND_U64, .short_name = (s), .long_name = (l), .argh = (a), .help = (h), \
	  .off = OPT_FIELD(TYPE, FIELD, unsigned long long) }
#define OPT_STRINGS(s, l, a, TYPE, FIELD, h) \
	{ .kind = OPT_KIND_STRINGS, .short_name = (s), .long_name = (l), .argh = (a), .help = (h), \
	  .off = OPT_FIELD(TYPE, FIELD, struct opt_strings) }
/* @a NULL: an option without an argument. The callback gets the struct the
 * table parses into (for a group, the group's struct) and @v as opt->value. */
#define OPT_CALLBACK(s, l, a, fn, v, h) \
	{ .kind = OPT_KIND_CALLBACK, .short_name = (s), .long_name = (l), .argh = (a), .help = (h), \
	  .cb = (fn), .value = (v) }
/* A callback option that --help shows on the line of the row before it,
 * which has the help words of both ("--from US, --to US  events in ..."). */
#define OPT_CALLBACK_SAME_LINE(l, a, fn, v) \
	{ .kind = OPT_KIND_CALLBACK, .long_name = (l), .argh = (a), .cb = (fn), .value = (v), \
	  .flags = OPT_SAME_LINE }
#define OPT_HELP() \
	{ .kind = OPT_KIND_HELP, .short_name = 'h', .long_name = "help", .help = "this help" }
#define OPT_TEXT(t) { .kind = OPT_KIND_TEXT, .help = (t) }
#define OPT_INCLUDE(g, off_) { .kind = OPT_KIND_INCLUDE, .group = (g), .off = (off_) }
/* Option --@l of group @g, whose struct is at @off_ (its help unless @h). */
#define OPT_USE(g, off_, l, h) OPT_USE_AS(g, off_, l, NULL, h, 0)
/* The same with another metavar (unless @a is NULL) and flags. */
#define OPT_USE_AS(g, off_, l, a, h, f) \
	{ .kind = OPT_KIND_USE, .group = (g), .off = (off_), .long_name = (l), .argh = (a), .help = (h), \
	  .flags = (f) }
#define OPT_END() { .kind = OPT_KIND_END }

/* A subcommand: the row of tlreplay's command table, and what the parser
 * needs to print its help. */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;	/* one line for `tlreplay --help` */
	const char *usage;	/* the head of --help: usage lines, what it does, a blank line */
	const struct opt *opts;	/* its options, in --help order; NULL: none */
	/* At most one option, as the first word and written in full; every
	 * other word is an argument, even one that looks like an option (a
	 * trace called "--x", a command name). */
	bool lone_option;
	/* Options end at the first word that is not one, which starts a
	 * command to run with its own options (`tlreplay record -- CMD -v`
	 * and `tlreplay record CMD -v` alike, as perf record does). */
	bool runs_command;
};

/*
 * Parse the options of @argv (argv[0] is the command's name) for @cmd into
 * @base, the struct the table's offsets are relative to. Returns true to go
 * on, with the arguments in argv[optind..argc-1] (getopt_long moves them
 * behind the options). Returns false when the command is done: it printed
 * --help on stdout (*status 0), or an error (*status 1; an unknown option
 * also gets the usage line); *status is left alone otherwise.
 */
bool opts_parse(const struct cmd *cmd, int argc, char **argv, void *base, int *status);

/* The help of @cmd: its usage text, then one line per option from the table. */
void opts_help(const struct cmd *cmd, FILE *f);
/* The long options of @cmd that --help shows, one per line (for bash completion). */
void opts_list(const struct cmd *cmd, FILE *f);

/* A whole number >= 0 (UIDs, counts): all of @s, no sign. */
bool parse_u64(const char *s, unsigned long long *v);

/* "Did you mean": up to three of @names within a small edit distance of
 * @word (1 for words of up to 4 letters, 2 up to 8, else 3), the closest
 * first, as "a or b"; "" when none. A static buffer. A mistyped long option
 * of a command gets them on its own (opts_parse). */
const char *opts_closest(const char *word, const char *const *names, size_t n);

#endif

/* SPDX-License-Identifier: MIT */
/* tlreplay: the command, a table of perf-style subcommands. Each subcommand
 * is a struct cmd (parse-options.h) defined in its builtin-*.c with its
 * usage and option table; this file only lists them and dispatches. */
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/child-signals.h"
#include "util/parent-watch.h"
#include "util/sigbus.h"

/* The commands, in the order `tlreplay --help` lists them. CMD(x) stands
 * for `const struct cmd x_cmd` of a builtin-*.c: a new command is its
 * builtin-NAME.c and one line here. */
#define TL_COMMANDS(CMD) \
	CMD(open)        \
	CMD(info)        \
	CMD(breakdown)   \
	CMD(idle)        \
	CMD(launches)    \
	CMD(steps)       \
	CMD(split)       \
	CMD(annotations) \
	CMD(critpath)    \
	CMD(collectives) \
	CMD(summarize)   \
	CMD(ops)         \
	CMD(kernels)     \
	CMD(seqs)        \
	CMD(report)      \
	CMD(diff)        \
	CMD(list)        \
	CMD(show)        \
	CMD(tree)        \
	CMD(check)       \
	CMD(ir)          \
	CMD(uid)         \
	CMD(replay)      \
	CMD(pack)        \
	CMD(stat)        \
	CMD(fold)        \
	CMD(sweep)       \
	CMD(record)      \
	CMD(kreplay)     \
	CMD(help)

#define DECLARE_CMD(x) extern const struct cmd x##_cmd;
TL_COMMANDS(DECLARE_CMD)

#define LIST_CMD(x) &x##_cmd,
static const struct cmd *const commands[] = { TL_COMMANDS(LIST_CMD) NULL };

/* A command by name or unambiguous prefix; NULL if none (@ambiguous says
 * whether several matched). */
static const struct cmd *find_cmd(const char *name, bool *ambiguous)
{
	const struct cmd *hit = NULL;
	size_t n = strlen(name), i;
	int nhits = 0;

	*ambiguous = false;
	for (i = 0; commands[i]; i++) {
		if (!strcmp(commands[i]->name, name))
			return commands[i];
		if (!strncmp(commands[i]->name, name, n)) {
			hit = commands[i];
			nhits++;
		}
	}
	if (nhits > 1) {
		*ambiguous = true;
		return NULL;
	}
	return hit;
}

static void main_usage(FILE *f)
{
	size_t i;

	fputs("usage: tlreplay [--version] [--help] [--max-text SIZE] COMMAND [ARGS]\n\n"
	      "Analyse PyTorch profiler traces; navigate them by UID.\n\n"
	      "Commands:\n",
	      f);
	for (i = 0; commands[i]; i++)
		fprintf(f, "   %-12s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\n   --max-text SIZE  refuse traces of more text than SIZE (8G, 500M; none),\n"
	      "                    gzip ones by what they inflate to (TLREPLAY_MAX_TEXT)\n"
	      "\nSee `tlreplay help COMMAND` or man tlreplay.\n", f);
}

/* ------------------------------------------------------------------ help */

static int cmd_help(int argc, char **argv)
{
	const struct cmd *c;
	bool amb;
	int rc;

	if (!opts_parse(&help_cmd, argc, argv, NULL, &rc))
		return rc;
	if (optind >= argc) {
		main_usage(stdout);
		return 0;
	}
	c = find_cmd(argv[optind], &amb);
	if (!c)
		return cli_error("help: no command '%s'", argv[optind]);
	opts_help(c, stdout);
	return 0;
}

static const struct opt help_opts[] = {
	/* the one line of usage says it all */
	{ .kind = OPT_KIND_HELP, .short_name = 'h', .long_name = "help", .flags = OPT_HIDDEN },
	OPT_END(),
};

TL_CMD_LONE_OPTION(help, help_opts, "help on a command",
	"usage: tlreplay help [COMMAND]\n");

/* ------------------------------------------------------------------ main */

/* A command that is none of ours: the close names, if any. */
static int unknown_command(const char *word)
{
	const char *names[128], *near;
	size_t i, n = 0;

	for (i = 0; commands[i] && n < TL_ARRAY_N(names); i++)
		names[n++] = commands[i]->name;
	near = opts_closest(word, names, n);
	if (*near)
		return cli_error("what is '%s'? did you mean %s? (`tlreplay --help` lists the commands)", word, near);
	return cli_error("what is '%s'? see `tlreplay --help` for the commands", word);
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	bool amb;
	size_t i;
	int rc;

	cli_hugepages(argv);
	sigbus_install();
	child_signals_install();
	rc = parent_watch_setup();
	if (rc)
		return rc;
	/* Options before the command: settings for every command's loads. */
	while (argc >= 2 && !strncmp(argv[1], "--max-text", 10) &&
	       (argv[1][10] == '=' || !argv[1][10])) {
		const char *v = argv[1][10] == '=' ? argv[1] + 11 : argc > 2 ? argv[2] : NULL;
		uint64_t sz;

		if (!v || tl_parse_size(v, &sz))
			return cli_error("--max-text: '%s' is not a size (like 8G, 500M, or none)",
					 v ? v : "");
		/* The library reads it for every trace it opens, ranks too. */
		setenv("TLREPLAY_MAX_TEXT", v, 1);
		i = argv[1][10] == '=' ? 1 : 2;
		argc -= (int)i;
		argv += i;
	}
	if (argc < 2) {
		main_usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("tlreplay %s\n", tl_version());
		return 0;
	}
	if (!strcmp(argv[1], "--list-cmds")) {
		for (i = 0; commands[i]; i++)
			puts(commands[i]->name);
		return 0;
	}
	/* for bash completion and the man page test: the long options --help shows */
	if (!strcmp(argv[1], "--list-opts")) {
		if (argc > 2 && (c = find_cmd(argv[2], &amb)))
			opts_list(c, stdout);
		return 0;
	}
	c = find_cmd(argv[1], &amb);
	if (!c) {
		if (amb)
			return cli_error("'%s' is ambiguous; see `tlreplay --help`", argv[1]);
		return unknown_command(argv[1]);
	}
	argv[1] = (char *)c->name;
	return c->fn(argc - 1, argv + 1);
}

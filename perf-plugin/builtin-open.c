/* SPDX-License-Identifier: MIT */
/* tlreplay open: remember a trace for the commands that follow. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"

struct open_args {
	bool forget;
};

static const struct opt open_opts[] = {
	OPT_BOOL(0, "forget", struct open_args, forget, "forget the remembered trace"),
	OPT_HELP(),
	OPT_END(),
};

TL_CMD_LONE_OPTION(open, open_opts, "remember a trace for later commands",
	"usage: tlreplay open TRACE\n"
	"       tlreplay open            (print the remembered trace)\n"
	"       tlreplay open --forget   (forget it)\n"
	"       tlreplay open --help\n"
	"\n"
	"Remember TRACE as the current trace, so that later commands may omit -i.\n"
	"The path is kept in $XDG_STATE_HOME/tlreplay/current-trace\n"
	"(~/.local/state/tlreplay/current-trace). The trace is loaded once to check it.\n"
	"\n");

static int cmd_open(int argc, char **argv)
{
	char *state = cli_state_file(), *abs = NULL, *text = NULL, *slash;
	struct tl_output o = { .fd = -1, .slot = -1 };
	struct open_args a = { 0 };
	struct tl_trace *tr = NULL;
	int rc = 1, err;

	if (!state)
		return cli_error("open: cannot find a state directory (set HOME or XDG_STATE_HOME)");
	if (!opts_parse(&open_cmd, argc, argv, &a, &rc)) {
		free(state);
		return rc;
	}
	argc -= optind - 1;	/* from here on argv[1] is the trace */
	argv += optind - 1;
	if (argc < 2 && !a.forget) {
		bool bad;
		char *have = cli_read_state(&bad);

		if (have) {
			printf("%s\n", have);
			rc = 0;
		} else if (!bad) {
			rc = cli_error("open: no trace remembered; use `tlreplay open TRACE`");
		}
		free(have);
		free(state);
		return rc;
	}
	if (a.forget) {
		if (unlink(state) && errno != ENOENT)
			rc = cli_error("open: %s: %s", state, strerror(errno));
		else
			rc = 0;
		free(state);
		return rc;
	}
	if (argc > 2) {
		free(state);
		return cli_error("open: one trace at a time");
	}
	{
		const char *one = cli_dir_trace(argv[1]);	/* a JAX profile directory: its trace */

		if (!one) {
			free(state);
			return 1;
		}
		abs = realpath(one, NULL);
	}
	if (!abs) {
		rc = cli_error("open: %s: %s", argv[1], strerror(errno));
		goto out;
	}
	if (cli_load(abs, &tr))
		goto out;
	slash = strrchr(state, '/');
	if (slash && slash != state) {
		*slash = 0;
		err = tl_output_mkdirs(state);
		*slash = '/';
		if (err) {
			rc = cli_error("open: %s", tl_last_error());
			goto out;
		}
	}
	/* the state file appears whole (tlreplay/output.h) */
	if (asprintf(&text, "%s\n", abs) < 0)
		goto out;
	if (tl_output_open(&o, state) || tl_output_write(&o, text, strlen(text)) || tl_output_commit(&o)) {
		rc = cli_error("open: cannot save %s", tl_last_error());
		tl_output_abort(&o);
		goto out;
	}
	printf("%s: %llu events; later commands use it without -i\n", abs,
	       (unsigned long long)tl_trace_nevents(tr));
	rc = 0;
out:
	tl_trace_close(tr);
	free(abs);
	free(text);
	free(state);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* tlreplay open / check. */
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

TL_CMD(check, opts_analysis, "trace health report (exit 1 on errors)",
	"usage: tlreplay check [-i TRACE] [-x SEP | -j] [-o FILE]\n"
	"\n"
	"Trace health report: GPU events no CPU launch links to, flows without a start,\n"
	"kernels on one stream that overlap or run past the next one, ops without shapes,\n"
	"negative or missing durations, clock disagreements between CPU and GPU.\n"
	"Exit status: 0 if nothing is an error, 1 if some finding is an error.\n"
	"\n");

static int cmd_check(int argc, char **argv)
{
	static const char *const sev[] = { "info", "warning", "error" };
	struct common_opts co = { 0 };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct tl_health *h = NULL;
	size_t i;
	int rc = 1, err;

	if (!opts_parse(&check_cmd, argc, argv, &co, &rc))
		return rc;
	if (cli_check_format("check", &co))
		return 1;
	if (cli_no_args("check", argc, argv))
		return 1;
	if (cli_open_trace(&co, &tr))
		return 1;
	err = tl_health_check(tr, &h);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open_opts(&o, &co))
		goto out;
	if (co.sep) {
		out_field(&o, "severity", false);
		out_field(&o, "code", false);
		out_field(&o, "count", false);
		out_field(&o, "example_uid", false);
		out_field(&o, "message", true);
	}
	for (i = 0; i < h->n; i++) {
		const struct tl_finding *f = &h->v[i];

		if (co.json) {
			fprintf(o.f, "{\"severity\":\"%s\",\"code\":\"%s\",\"count\":%llu,", sev[f->severity],
				f->code, (unsigned long long)f->count);
			if (f->example_uid >= 0)
				fprintf(o.f, "\"example_uid\":%lld,", (long long)f->example_uid);
			fputs("\"message\":", o.f);
			json_str(o.f, f->message);
			fputs("}\n", o.f);
		} else if (co.sep) {
			char cnt[32], ex[32] = "";

			snprintf(cnt, sizeof(cnt), "%llu", (unsigned long long)f->count);
			if (f->example_uid >= 0)
				snprintf(ex, sizeof(ex), "%lld", (long long)f->example_uid);
			out_field(&o, sev[f->severity], false);
			out_field(&o, f->code, false);
			out_field(&o, cnt, false);
			out_field(&o, ex, false);
			out_field(&o, f->message, true);
		} else {
			fprintf(o.f, "%-7s %s: %s", sev[f->severity], f->code, f->message);
			if (f->example_uid >= 0)
				fprintf(o.f, " (e.g. UID %lld)", (long long)f->example_uid);
			fputc('\n', o.f);
		}
	}
	if (!co.sep && !co.json)
		fprintf(o.f, "%s: %zu error(s), %zu warning(s), %llu events\n", tl_trace_path(tr),
			h->nerrors, h->nwarnings, (unsigned long long)tl_trace_nevents(tr));
	rc = out_close(&o, false);
	if (!rc && h->nerrors)
		rc = 1;
out:
	tl_health_free(h);
	tl_trace_close(tr);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* Helpers shared by the tlreplay subcommands: errors, the checks of option
 * combinations, files beside the executable. Opening traces, reading small
 * files and noting inputs are in inputs.c, writing outputs in outputs.c. */
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

/* SPDX-License-Identifier: MIT */
/* Which Python replays (tlreplay/replay.h, tl_python_find): the one the user
 * named (--python, $TLREPLAY_PYTHON; a bare name is looked up on PATH as a
 * shell would), else the first with torch among where users keep it: the
 * active virtualenv, the active conda environment, each python3 on PATH, and
 * Debian's /usr/bin/python3 (where apt installs torch). Whether an interpreter
 * has torch is asked without importing it (importlib's find_spec: a few tens
 * of ms, not the seconds an import of torch takes). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tlreplay/replay.h>

#include "base/base_internal.h"

static bool executable(const char *p)
{
	return p && *p && !access(p, X_OK);
}

/* @name on PATH, as execvp finds it, into @out. */
static bool on_path(const char *name, char *out, size_t n)
{
	const char *path = getenv("PATH"), *p, *e;

	for (p = path; p && *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ':');
		snprintf(out, n, "%.*s/%s", (int)(e - p), e > p ? p : ".", name);
		if (executable(out))
			return true;
	}
	return false;
}

/* Whether interpreter @py finds torch (exit status of a find_spec). */
static bool has_torch(const char *py)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return false;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execl(py, py, "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)",
		      (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int pick(char *out, size_t n, char *why, size_t whyn, const char *py, const char *reason)
{
	snprintf(out, n, "%s", py);
	snprintf(why, whyn, "%s", reason);
	return 0;
}

int tl_python_find(const char *given, char *out, size_t n, char *why, size_t whyn)
{
	const char *env = getenv("TLREPLAY_PYTHON"), *dirs[2], *path, *p, *e;
	char cand[PATH_MAX];
	size_t i;

	if (!given || !*given) {
		given = env && *env ? env : NULL;
		if (given)
			snprintf(why, whyn, "$TLREPLAY_PYTHON");
	} else {
		snprintf(why, whyn, "--python");
	}
	if (given) {
		char src[32];

		snprintf(src, sizeof(src), "%s", why);
		if (strchr(given, '/')) {
			if (!executable(given))
				return tl_err(-ENOENT, "%s: no such Python interpreter (given by %s)", given, src);
			return pick(out, n, why, whyn, given, src);
		}
		if (!on_path(given, cand, sizeof(cand)))
			return tl_err(-ENOENT, "%s: no such Python interpreter on PATH (given by %s)", given, src);
		snprintf(why, whyn, "%s, found on PATH", src);
		snprintf(out, n, "%s", cand);
		return 0;
	}
	/* the active environments first: a venv or conda env is where torch was
	 * installed on purpose */
	dirs[0] = getenv("VIRTUAL_ENV");
	dirs[1] = getenv("CONDA_PREFIX");
	for (i = 0; i < 2; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		snprintf(cand, sizeof(cand), "%s/bin/python3", dirs[i]);
		if (executable(cand) && has_torch(cand))
			return pick(out, n, why, whyn, cand,
				    i ? "the active conda environment ($CONDA_PREFIX) has torch"
				      : "the active virtualenv ($VIRTUAL_ENV) has torch");
	}
	path = getenv("PATH");
	for (p = path; p && *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ':');
		snprintf(cand, sizeof(cand), "%.*s/python3", (int)(e - p), e > p ? p : ".");
		if (executable(cand) && has_torch(cand))
			return pick(out, n, why, whyn, cand, "the first python3 on PATH with torch");
	}
	if (executable(TL_DEFAULT_PYTHON) && has_torch(TL_DEFAULT_PYTHON))
		return pick(out, n, why, whyn, TL_DEFAULT_PYTHON, "Debian's python3, where apt installs torch");
	return tl_err(-ENOENT,
		      "no Python with torch: none in $VIRTUAL_ENV, $CONDA_PREFIX, the python3s on PATH or %s (give one "
		      "with --python or TLREPLAY_PYTHON)",
		      TL_DEFAULT_PYTHON);
}

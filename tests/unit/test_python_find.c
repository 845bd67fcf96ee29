/* SPDX-License-Identifier: MIT */
/* Which Python replays (tl_python_find): the one named (--python,
 * $TLREPLAY_PYTHON), a bare name found on PATH; else the first with torch of
 * $VIRTUAL_ENV, $CONDA_PREFIX, the python3s on PATH. Fake interpreters here:
 * shell scripts that answer the torch question (find_spec) yes or no. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tlreplay/common.h>
#include <tlreplay/replay.h>

#include "tap.h"

static char root[PATH_MAX];

/* @dir/python3 under root: a script that says torch is there or not. */
static void fake(const char *dir, bool torch)
{
	char d[PATH_MAX + 64], f[PATH_MAX + 128];
	FILE *fp;

	snprintf(d, sizeof(d), "%s/%s", root, dir);
	mkdir(d, 0755);
	snprintf(f, sizeof(f), "%s/python3", d);
	fp = fopen(f, "w");
	if (!fp)
		return;
	fprintf(fp, "#!/bin/sh\nexit %d\n", torch ? 0 : 1);
	fclose(fp);
	chmod(f, 0755);
}

static const char *at(const char *dir, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", root, dir);
	return buf;
}

int main(void)
{
	char py[PATH_MAX], why[128], a[PATH_MAX + 64], b[PATH_MAX + 64], path[3 * PATH_MAX];
	char want[PATH_MAX + 80], *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	int err;

	snprintf(root, sizeof(root), "%s/tl-pyfind-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return 1;
	fake("notorch", false);
	fake("torch", true);
	fake("venv", false); /* makes the folder; its bin/ answers yes */
	fake("venv/bin", true);
	unsetenv("TLREPLAY_PYTHON");
	unsetenv("VIRTUAL_ENV");
	unsetenv("CONDA_PREFIX");

	snprintf(path, sizeof(path), "%s:%s", at("notorch", a, sizeof(a)), at("torch", b, sizeof(b)));
	setenv("PATH", path, 1);
	err = tl_python_find(NULL, py, sizeof(py), why, sizeof(why));
	snprintf(want, sizeof(want), "%s/torch/python3", root);
	ok(!err && !strcmp(py, want) && strstr(why, "first python3 on PATH with torch"),
	   "PATH: the first python3 with torch, not the first one (%s: %s)", py, why);

	snprintf(want, sizeof(want), "%s/venv", root);
	setenv("VIRTUAL_ENV", want, 1);
	err = tl_python_find(NULL, py, sizeof(py), why, sizeof(why));
	ok(!err && strstr(py, "/venv/bin/python3") && strstr(why, "VIRTUAL_ENV"),
	   "an active virtualenv with torch comes first (%s: %s)", py, why);
	unsetenv("VIRTUAL_ENV");

	err = tl_python_find("python3", py, sizeof(py), why, sizeof(why));
	snprintf(want, sizeof(want), "%s/notorch/python3", root);
	ok(!err && !strcmp(py, want) && strstr(why, "--python, found on PATH"),
	   "--python python3: a bare name is looked up on PATH, as given (%s: %s)", py, why);

	err = tl_python_find("no-such-python", py, sizeof(py), why, sizeof(why));
	ok(err == -ENOENT && strstr(tl_last_error(), "no-such-python: no such Python interpreter on PATH"),
	   "an unknown bare name: said (%s)", tl_last_error());

	setenv("TLREPLAY_PYTHON", "/no/where/python3", 1);
	err = tl_python_find(NULL, py, sizeof(py), why, sizeof(why));
	ok(err == -ENOENT && strstr(tl_last_error(), "given by $TLREPLAY_PYTHON"),
	   "$TLREPLAY_PYTHON is taken as given, and named when wrong (%s)", tl_last_error());
	unsetenv("TLREPLAY_PYTHON");

	setenv("PATH", at("notorch", a, sizeof(a)), 1);
	err = tl_python_find(NULL, py, sizeof(py), why, sizeof(why));
	ok(err == 0 ? !strcmp(py, TL_DEFAULT_PYTHON)
		    : (err == -ENOENT && strstr(tl_last_error(), "no Python with torch")),
	   "no torch on PATH: " TL_DEFAULT_PYTHON " if it has torch, else an error saying what was tried (%s)",
	   err ? tl_last_error() : why);

	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	if (system(path))
		diag("cannot remove %s", root);
	done_testing();
}

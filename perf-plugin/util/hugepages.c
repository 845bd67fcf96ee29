/* SPDX-License-Identifier: MIT */
/* Transparent huge pages for the whole process's heap, where the kernel
 * gives them only on request (THP "madvise", Debian's default).
 *
 * Why: a report of a GB trace fills some 400 MB of fresh memory, and on a VM
 * each 4 KiB page fault costs microseconds: on the 290 MB x8 OWLv2 trace,
 * 66 000 faults are a fifth of the report's time. glibc asks for huge pages
 * for all it maps when its tunable glibc.malloc.hugetlb=1 is set, which it
 * reads only when a process starts; so tlreplay sets it and executes itself
 * again, once, then gives its children (the replay worker, perf) the
 * environment it was started with. The library hints its own big arrays
 * (tl_hint_huge) for programs that embed it.
 *
 * Not done: under valgrind (the new image would run outside it), when the
 * user set the tunable either way, when THP is "always" (nothing to ask) or
 * "never", or with TLREPLAY_HUGEPAGES=never. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cli.h"

#define SAVED "TLREPLAY_SAVED_TUNABLES"	/* "=VALUE", or "-" for none */

static bool thp_on_request(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strstr(buf, "[madvise]") != NULL;
}

static void restore(const char *saved)
{
	if (saved[0] == '=')
		setenv("GLIBC_TUNABLES", saved + 1, 1);
	else
		unsetenv("GLIBC_TUNABLES");
	unsetenv(SAVED);
}

void cli_hugepages(char **argv)
{
	const char *saved = getenv(SAVED), *t = getenv("GLIBC_TUNABLES");
	const char *mode = getenv("TLREPLAY_HUGEPAGES"), *pre = getenv("LD_PRELOAD");
	char *val = NULL, *keep = NULL;

	if (saved) {
		/* the second start: malloc has read its tunables */
		restore(saved);
		return;
	}
	if ((mode && !strcmp(mode, "never")) || (t && strstr(t, "glibc.malloc.hugetlb")) ||
	    (pre && strstr(pre, "vgpreload")) || !thp_on_request())
		return;
	if (asprintf(&keep, t ? "=%s" : "-", t) < 0 ||
	    asprintf(&val, "%s%sglibc.malloc.hugetlb=1", t ? t : "", t && *t ? ":" : "") < 0)
		goto out;
	if (setenv(SAVED, keep, 1) || setenv("GLIBC_TUNABLES", val, 1))
		goto out;
	execv("/proc/self/exe", argv);
	/* no /proc, or the binary is gone: go on as we are */
out:
	if (keep && getenv(SAVED))
		restore(keep);
	free(keep);
	free(val);
}

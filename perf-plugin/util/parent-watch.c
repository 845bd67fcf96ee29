/* SPDX-License-Identifier: MIT */
/* TLREPLAY_PARENT_PID (parent-watch.h). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "util/cli.h"
#include "util/parent-watch.h"

#define PARENT_VAR "TLREPLAY_PARENT_PID"

int parent_watch_setup(void)
{
	const char *v = getenv(PARENT_VAR);
	char text[32];
	char *end;
	long pid;

	if (!v)
		return 0;
	snprintf(text, sizeof(text), "%s", v);
	unsetenv(PARENT_VAR);
	errno = 0;
	pid = strtol(text, &end, 10);
	if (errno || end == text || *end || pid <= 1 || pid > INT_MAX)
		return cli_error(PARENT_VAR ": '%s' is not a process id", text);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM))
		return cli_error(PARENT_VAR ": cannot ask to die with the parent: %s", strerror(errno));
	/* The watch is on whoever is our parent now; if @pid died before it was
	 * armed (we were then handed to init), or is gone already, nobody waits
	 * for this run. A wrapper between it and us (a script that runs
	 * tlreplay) is watched instead, which is as close as the kernel goes. */
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return cli_error(PARENT_VAR ": process %ld, which started this run, is gone", pid);
	return 0;
}

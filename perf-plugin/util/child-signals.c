// SPDX-License-Identifier: MIT
/*
 * The signals tlreplay passes on to its children before it dies of them
 * (child-signals.h). The table is fixed and read by the handler, so a slot is
 * filled before it is marked used and unmarked before it is emptied.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

#include <tlreplay/output.h>

#include "util/child-signals.h"

#define CHILD_SLOTS 8

static struct {
	const void *obj;
	child_pid_fn pid_of;
	volatile sig_atomic_t used;
} slots[CHILD_SLOTS];
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t installed;

void child_signals_kill_all(int sig)
{
	size_t i;

	for (i = 0; i < CHILD_SLOTS; i++) {
		pid_t pid;

		if (!slots[i].used)
			continue;
		pid = slots[i].pid_of(slots[i].obj);
		if (pid > 0)
			kill(pid, sig);
	}
}

static void on_signal(int sig)
{
	int saved = errno;

	child_signals_kill_all(sig);
	/* outputs written under a name of their own (no O_TMPFILE) go */
	tl_output_unlink_pending();
	/* then die of it, as without a handler */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

void child_signals_install(void)
{
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&sa.sa_mask, forwarded[i]);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		/* a signal ignored when we started (nohup, a background job's SIGINT) stays so */
		if (sigaction(forwarded[i], NULL, &old) || old.sa_handler == SIG_IGN)
			continue;
		sigaction(forwarded[i], &sa, NULL);
	}
	installed = 1;
}

int child_signals_add(const void *obj, child_pid_fn pid_of)
{
	size_t i;

	if (!installed)
		child_signals_install();
	for (i = 0; i < CHILD_SLOTS; i++)
		if (!slots[i].used) {
			slots[i].obj = obj;
			slots[i].pid_of = pid_of;
			slots[i].used = 1;
			return 0;
		}
	return -ENOSPC;
}

void child_signals_del(const void *obj)
{
	size_t i;

	for (i = 0; i < CHILD_SLOTS; i++)
		if (slots[i].used && slots[i].obj == obj) {
			slots[i].used = 0;
			slots[i].obj = NULL;
		}
}

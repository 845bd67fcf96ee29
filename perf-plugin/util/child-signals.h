/* SPDX-License-Identifier: MIT */
/*
 * Children that go when tlreplay goes. A replay worker (or, with record
 * --kill-with-parent, the recorded program) is registered here; on SIGINT,
 * SIGTERM or SIGHUP tlreplay passes the signal on to each registered child,
 * then dies of the signal itself (exit status 128+N, as a shell reports it).
 * SIGKILL cannot be caught: the children ask the kernel for a signal when
 * their parent dies (PR_SET_PDEATHSIG), which covers it. Outputs still under a
 * name of their own (tlreplay/output.h without O_TMPFILE) are removed first.
 *
 * Ownership: the registry keeps the pointers it is given, not what they point
 * to; a child's owner removes it (child_signals_del) before freeing it.
 */
#ifndef TLREPLAY_CHILD_SIGNALS_H
#define TLREPLAY_CHILD_SIGNALS_H

#include <sys/types.h>

/* The pid of @obj's child now (a worker restarts under a new pid), or <= 0.
 * Called from the signal handler: it must only read memory. */
typedef pid_t (*child_pid_fn)(const void *obj);

/* Install the handlers (main does, first thing: pending outputs are removed
 * on these signals even with no child). */
void child_signals_install(void);
/* Register @obj; returns 0, or -ENOSPC when the table is full. */
int child_signals_add(const void *obj, child_pid_fn pid_of);
/* Forget @obj (nothing when it is not registered). */
void child_signals_del(const void *obj);
/* Send @sig to every registered child now (async-signal-safe: for other
 * handlers, such as sigbus.c's). */
void child_signals_kill_all(int sig);

#endif

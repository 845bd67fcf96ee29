/* SPDX-License-Identifier: MIT */
/*
 * Going when the program that started tlreplay goes, when it asks to.
 *
 * gdb starts each replay in a session of its own (gdb/tlreplay_gdb/runner.py)
 * so that a Ctrl-C at gdb's terminal reaches gdb alone, which then stops the
 * replay. The price: a gdb that is killed, or whose terminal closes, would
 * leave the replay running, a GPU busy for minutes with nobody to read it.
 * So gdb sets TLREPLAY_PARENT_PID to its own pid, and tlreplay asks the
 * kernel for SIGTERM when its parent dies (PR_SET_PDEATHSIG); SIGTERM then
 * does what it always does (child-signals.h): the worker is told, pending
 * outputs are removed, tlreplay dies of it. The variable is removed from the
 * environment, so that tlreplay's own children (perf, a nested tlreplay) do
 * not read it.
 */
#ifndef TLREPLAY_PARENT_WATCH_H
#define TLREPLAY_PARENT_WATCH_H

/* Read TLREPLAY_PARENT_PID and arm the watch. Returns 0 (also when the
 * variable is not set), or an exit status after a one-line error: the value
 * is not a pid, or that process is already gone (it died before the watch
 * was armed: nothing would stop this tlreplay). */
int parent_watch_setup(void);

#endif

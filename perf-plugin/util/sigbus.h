/* SPDX-License-Identifier: MIT */
/*
 * A trace that changes under us. Plain traces are mapped, not read: when
 * another process truncates or rewrites one while tlreplay works (a profiler
 * writing to the same path), touching a page past the new end raises SIGBUS,
 * which killed tlreplay with exit 135 and no word. sigbus_install() makes
 * that one line naming the file ("changed while it was read") and exit 1.
 */
#ifndef TLREPLAY_SIGBUS_H
#define TLREPLAY_SIGBUS_H

/* Install the handler (once, from main, before any trace is opened). */
void sigbus_install(void);

#endif

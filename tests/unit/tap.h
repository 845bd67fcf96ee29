/* SPDX-License-Identifier: MIT */
/* A minimal TAP producer for the unit tests (run by prove). Header-only:
 * each test program includes it once. */
#ifndef TL_TAP_H
#define TL_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed, tap_planned = -1;

static inline void plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
}

static inline int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

static inline void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Everything skipped: a visible "# SKIP" line, exit 0. */
static inline void skip_all(const char *reason)
{
	printf("1..0 # SKIP %s\n", reason);
	exit(0);
}

static inline void skip(const char *reason)
{
	tap_n++;
	printf("ok %d # SKIP %s\n", tap_n, reason);
}

static inline int done_testing(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_n);
	else if (tap_planned != tap_n)
		printf("# planned %d tests but ran %d\n", tap_planned, tap_n);
	return tap_failed || (tap_planned >= 0 && tap_planned != tap_n) ? 1 : 0;
}

#endif

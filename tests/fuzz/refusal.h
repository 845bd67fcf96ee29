/* SPDX-License-Identifier: MIT */
/* What the fuzz targets share to report a breach: fail() names the target
 * (FUZZ_TARGET, defined by the includer before this header), what broke and
 * why, and aborts; check_refusal() holds an error to the library's promise:
 * one of the -errno values @codes lists (0-terminated), and one line in
 * tl_last_error() that says something. Header-only, for one includer. */
#ifndef TLREPLAY_TESTS_FUZZ_REFUSAL_H
#define TLREPLAY_TESTS_FUZZ_REFUSAL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tlreplay.h>

#ifndef FUZZ_TARGET
#error "define FUZZ_TARGET (the target's name) before including refusal.h"
#endif

static void fail(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", FUZZ_TARGET, what, why);
	abort();
}

static void check_refusal(const char *what, int err, const int *codes)
{
	const char *m = tl_last_error();
	char why[700];

	for (; *codes; codes++)
		if (err == -*codes)
			break;
	if (!*codes || !*m || strchr(m, '\n')) {
		snprintf(why, sizeof(why), "error %d: \"%.600s\"", err, m);
		fail(what, why);
	}
}

#endif

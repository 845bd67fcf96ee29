/* SPDX-License-Identifier: MIT */
/* Small traces built in memory from event strings, for the unit tests:
 * LOAD(ev, ev, ...) wraps them in {"traceEvents": [...]} and opens the
 * result. With TRACE_FIXTURE_SINGLE_QUOTES defined before inclusion, the
 * events may be written with single quotes for readability. */
#ifndef TL_TRACE_FIXTURE_H
#define TL_TRACE_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include <tlreplay/tlreplay.h>

#include "tap.h"

static struct tl_trace *load(const char *const *events, size_t n)
{
	size_t cap = 64, len, i;
	char *buf;
	struct tl_trace *tr = NULL;

	for (i = 0; i < n; i++)
		cap += strlen(events[i]) + 2;
	buf = malloc(cap);
	if (!buf)
		return NULL;
	len = (size_t)sprintf(buf, "{\"traceEvents\": [");
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(buf + len, "%s%s", i ? "," : "", events[i]);
	len += (size_t)sprintf(buf + len, "]}");
#ifdef TRACE_FIXTURE_SINGLE_QUOTES
	for (i = 0; i < len; i++)
		if (buf[i] == '\'')
			buf[i] = '"';
#endif
	if (tl_trace_open_mem(buf, len, "test", NULL, &tr))
		diag("load failed: %s", tl_last_error());
	free(buf);
	return tr;
}

#define LOAD(...)                                                                              \
	load((const char *const[]){ __VA_ARGS__ },                                             \
	     sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

#endif

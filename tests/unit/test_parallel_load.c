/* SPDX-License-Identifier: MIT */
/* Traces over 16 MB are parsed by two threads from a guessed midpoint; the
 * guess may land inside an event. Whatever happens, the result (events,
 * strings, errors and their positions) must equal the one-thread parse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tlreplay/tlreplay.h>

#include "tap.h"

/* @nested: every event's args hold arrays of objects ("},{" everywhere),
 * so the midpoint guess lands inside an event. */
static char *make_trace(size_t target, bool nested, size_t *len)
{
	size_t cap = target + 4096, n = 0, i = 0;
	char *b = malloc(cap);

	n += (size_t)sprintf(b + n, "{\"traceEvents\": [\n");
	while (n < target) {
		if (nested)
			n += (size_t)sprintf(b + n,
					     "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%zu\",\"pid\":1,\"tid\":%zu,"
					     "\"ts\":%zu.5,\"dur\":1,\"args\":{\"l\":[{\"a\":1},{\"b\":[{\"c\":2},{\"d\":3}]},"
					     "{\"e\":\"},{\"}]}}",
					     i ? ",\n" : "", i % 97, i % 7, i);
		else
			n += (size_t)sprintf(b + n,
					     "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%zu\",\"pid\":0,\"tid\":%zu,"
					     "\"ts\":%zu.25,\"dur\":0.5,\"args\":{\"correlation\":%zu,\"stream\":7}}",
					     i ? ",\n" : "", i % 1013, i % 3, i, i);
		i++;
	}
	n += (size_t)sprintf(b + n, "\n], \"traceName\": \"big\"}\n");
	*len = n;
	return b;
}

static bool same(struct tl_trace *a, struct tl_trace *b)
{
	uint64_t i, n = tl_trace_nevents(a);

	if (n != tl_trace_nevents(b))
		return false;
	for (i = 0; i < n; i++) {
		struct tl_event_info x, y;

		tl_trace_event(a, i, &x);
		tl_trace_event(b, i, &y);
		if (strcmp(x.name, y.name) || strcmp(x.cat, y.cat) || strcmp(x.pid, y.pid) ||
		    strcmp(x.tid, y.tid) || x.ts != y.ts || x.dur != y.dur || x.kind != y.kind ||
		    x.args_len != y.args_len || memcmp(x.args, y.args, x.args_len) ||
		    x.correlation != y.correlation)
			return false;
	}
	return true;
}

static int load(const char *buf, size_t len, bool threads, struct tl_trace **tr, char *msg, size_t n)
{
	int err;

	setenv("TLREPLAY_THREADS", threads ? "2" : "1", 1);
	*tr = NULL;
	err = tl_trace_open_mem(buf, len, "big.json", NULL, tr);
	snprintf(msg, n, "%s", err ? tl_last_error() : "");
	return err;
}

int main(void)
{
	char m1[1024], m2[1024];
	int pass;

	for (pass = 0; pass < 2; pass++) {
		bool nested = pass == 1;
		size_t len;
		char *buf = make_trace(24u << 20, nested, &len);
		struct tl_trace *a, *b;
		int e1 = load(buf, len, true, &a, m1, sizeof(m1));
		int e2 = load(buf, len, false, &b, m2, sizeof(m2));

		ok(e1 == 0 && e2 == 0 && tl_trace_nevents(a) > 50000,
		   "%s: 24 MB trace loads both ways (%llu events)", nested ? "guess inside events" : "flat",
		   a ? (unsigned long long)tl_trace_nevents(a) : 0ULL);
		ok(a && b && same(a, b), "%s: two threads give exactly the one-thread events",
		   nested ? "guess inside events" : "flat");
		tl_trace_close(a);
		tl_trace_close(b);

		/* an error in the second half: same message, same event index */
		*strchr(buf + len * 3 / 4, '{') = '@';
		e1 = load(buf, len, true, &a, m1, sizeof(m1));
		e2 = load(buf, len, false, &b, m2, sizeof(m2));
		ok(e1 == e2 && e1 < 0 && !strcmp(m1, m2), "%s: error in the second half reported alike: %s",
		   nested ? "guess inside events" : "flat", m1);
		/* truncated */
		e1 = load(buf, len / 3 * 2, true, &a, m1, sizeof(m1));
		e2 = load(buf, len / 3 * 2, false, &b, m2, sizeof(m2));
		ok(e1 == e2 && e1 < 0 && !strcmp(m1, m2) &&
			   (strstr(m1, "truncated") || strstr(m1, "unterminated")),
		   "%s: truncated file reported alike: %s", nested ? "guess inside events" : "flat", m1);
		if (strcmp(m1, m2))
			diag("one thread: %s", m2);
		free(buf);
	}
	unsetenv("TLREPLAY_THREADS");
	return done_testing();
}

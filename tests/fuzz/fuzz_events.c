/* SPDX-License-Identifier: MIT */
/* libFuzzer target for -e event strings: perf's event-list syntax as `stat`,
 * `sweep`, `uid -e` and `kreplay -e` take it.
 *
 * The bytes up to the first NUL are the string. The command splits it
 * (event_split: GPU metrics and nvml/ energy taken out, the rest left for
 * perf); the library parses what is left (tl_cnt_parse: groups, modifiers,
 * PMU terms, names resolved against the built-in tables and sysfs), and the
 * whole string too. Nothing is opened.
 *
 * Rules: a refusal is -EINVAL or -ENOMEM with one line that says something;
 * a parse that succeeds has at least one event, every event has a name and
 * belongs to a group that holds it, the groups cover the events in order
 * without overlap, and a scale that is finite and positive; parsing the
 * names it gives back (joined with commas, each group in braces) succeeds
 * with as many events. Any breach aborts. Built with -DTL_FUZZ_STANDALONE it
 * replays files (standalone.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tlreplay.h>

#include "counters/counters_internal.h"	/* tl_cnt_parse */
#include "stat/gpu-events.h"		/* perf-plugin: the command's split */
#define FUZZ_TARGET "fuzz_events"
#include "refusal.h"
#include "standalone.h"

static void check_list(const char *what, const struct tl_cnt_list *l)
{
	size_t g, i, next = 0;

	if (!l->ev.n || !l->grp.n)
		fail(what, "accepted with no event");
	for (g = 0; g < l->grp.n; g++) {
		const struct tl_cnt_grp *p = &l->grp.v[g];

		if (p->first != next || !p->n || p->first + p->n > l->ev.n)
			fail(what, "groups that do not cover the events in order");
		next = p->first + p->n;
		for (i = p->first; i < next; i++)
			if (l->ev.v[i].group != g)
				fail(what, "an event outside its group");
	}
	if (next != l->ev.n)
		fail(what, "events after the last group");
	for (i = 0; i < l->ev.n; i++) {
		const struct tl_cnt_ev *e = &l->ev.v[i];

		if (!e->name || !*e->name)	/* unit: NULL for none */
			fail(what, "an event without a name");
		if (!isfinite(e->scale) || e->scale <= 0)
			fail(what, "a scale that is not finite and positive");
	}
}

/* The names given back, as a list again: the same number of events. */
static void check_names_parse(const char *what, const struct tl_cnt_list *l)
{
	struct tl_cnt_list again = { 0 };
	char *text = NULL;
	size_t cap = 0, g, i;
	FILE *m = open_memstream(&text, &cap);
	int err;

	if (!m)
		return;
	for (g = 0; g < l->grp.n; g++) {
		const struct tl_cnt_grp *p = &l->grp.v[g];

		fputs(g ? "," : "", m);
		fputs(p->braces ? "{" : "", m);
		for (i = p->first; i < p->first + p->n; i++)
			fprintf(m, "%s%s", i > p->first ? "," : "", l->ev.v[i].name);
		fputs(p->braces ? "}" : "", m);
	}
	if (fclose(m))
		return;
	err = tl_cnt_parse(text, &again);
	if (err == -ENOMEM)
		goto out;
	if (err) {
		char why[900];

		snprintf(why, sizeof(why), "\"%.300s\" does not parse again: %.500s", text, tl_last_error());
		fail(what, why);
	}
	if (again.ev.n != l->ev.n)
		fail(what, "its names parse to another number of events");
out:
	tl_cnt_list_free(&again);
	free(text);
}

static void parse_one(const char *what, const char *s)
{
	struct tl_cnt_list l = { 0 };
	int err = tl_cnt_parse(s, &l);

	if (err) {
		check_refusal(what, err, (const int[]){ EINVAL, ENOMEM, 0 });
		return;
	}
	check_list(what, &l);
	check_names_parse(what, &l);
	tl_cnt_list_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct event_split sp = { .energy_dev = -1 };
	char *s = strndup((const char *)data, size > 4096 ? 4096 : size);

	if (!s)
		return 0;
	parse_one("the whole list", s);
	if (!event_split(s, &sp) && sp.perf)
		parse_one("what the split leaves for perf", sp.perf);
	event_split_free(&sp);
	free(s);
	return 0;
}

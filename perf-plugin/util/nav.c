/* SPDX-License-Identifier: MIT */
/* What the navigation commands (list, show, tree) share: nav.h. */
#include <math.h>

#include "util/nav.h"

/* Earliest ts in the trace: relative times in human output start here. */
double nav_trace_t0(const struct tl_trace *tr)
{
	uint64_t i, n = tl_trace_nevents(tr);
	double t0 = INFINITY;

	for (i = 0; i < n; i++) {
		struct tl_event_info e;

		tl_trace_event(tr, i, &e);
		if (e.has_ts && e.kind != TL_KIND_METADATA && e.ts < t0)
			t0 = e.ts;
	}
	return isinf(t0) ? 0 : t0;
}

bool nav_parse_uid(const char *cmd, const char *s, const struct tl_trace *tr, uint64_t *uid)
{
	unsigned long long v;

	if (!parse_u64(s, &v)) {
		cli_error("%s: '%s' is not a UID (a UID is an event's index in traceEvents)", cmd, s);
		return false;
	}
	if (v >= tl_trace_nevents(tr)) {
		cli_error("%s: no event with UID %llu in %s (UIDs go from 0 to %llu)", cmd, v,
			  tl_trace_path(tr), (unsigned long long)tl_trace_nevents(tr) - 1);
		return false;
	}
	*uid = v;
	return true;
}

const char *nav_kind_label(const struct tl_event_info *e)
{
	return *e->cat ? e->cat : tl_kind_name(e->kind);
}

/* show and tree: the trace of @co linked into its call tree (with
 * python_function events when @py), and the output opened. Returns 0, or 1
 * after printing why; the caller closes *tr either way. */
int nav_load(const struct common_opts *co, bool py, struct tl_trace **tr, struct out_fmt *o)
{
	struct tl_link_opts lo = { .sz = sizeof(lo), .with_python = py };
	int err;

	if (cli_open_trace(co, tr))
		return 1;
	err = tl_trace_link(*tr, &lo);
	if (err)
		return cli_lib_error(err);
	return out_open(o, co->output);
}

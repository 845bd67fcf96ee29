/* SPDX-License-Identifier: MIT */
/* The HTML report's section on replays: the results store's records of this
 * trace, chosen as `tlreplay fold` chooses them (tl_fold_add(): same trace,
 * status ok, the latest per uid, device, command and event group), each
 * beside the op's times in the trace. A trace with no results leaves the
 * section out; a store that cannot be read is a warning, not a failure:
 * the rest of the page does not need it. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/fold.h>
#include <tlreplay/store.h>

#include "util/cli.h"
#include "html/html-page.h"
#include "html/html-sections.h"

static int offer(const cJSON *rec, size_t line, void *ctx)
{
	(void)line;
	return tl_fold_add(ctx, rec);
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) && v->valuestring ? v->valuestring : dflt;
}

static void row(FILE *f, struct tl_trace *tr, const cJSON *r)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "time_us");
	double uid = num(r, "uid"), med = num(t, "median"), kern = num(r, "kernel_us"), trace_gpu = num(r, "trace_gpu_us");
	double replay = isfinite(kern) ? kern : med;
	struct tl_event_info e;
	bool have = uid >= 0 && !tl_trace_event(tr, (uint64_t)uid, &e);

	hp_tr(f);
	hp_td_num(f, "%.0f", uid);
	hp_td(f, str(r, "op", ""), 50);
	hp_td(f, str(r, "device", "cpu"), 16);
	hp_td(f, str(r, "command", ""), 12);
	hp_td_time(f, have && e.has_dur ? e.dur : NAN);
	hp_td_time(f, trace_gpu);
	hp_td_time(f, med);
	hp_td_time(f, kern);
	/* the replay's kernel time where it has one: the measure trace_gpu_us uses;
	 * a CPU replay's time is no GPU time (the command line says so too) */
	if (!strncmp(str(r, "device", "cpu"), "cpu", 3))
		hp_td(f, "not comparable (a CPU replay)", 30);
	else
		hp_td_num(f, "%.2f\xc3\x97", isfinite(trace_gpu) && trace_gpu > 0 ? replay / trace_gpu : NAN);
	hp_td(f, str(r, "kernels_vs_trace", "\xe2\x80\x93"), 12);
	hp_td(f, str(r, "time", ""), 30);
	hp_tr_end(f);
}

int hs_replay(FILE *f, const struct html_ctx *c, bool *written)
{
	static const char *const cols[] = { "#UID", "op", "device", "command", "#trace CPU time",
					    "#trace GPU time", "#replay (median call)", "#replay kernels",
					    "#replay / trace GPU", "kernels", "when" };
	struct tl_fold_opts fo = { .sz = sizeof(fo), .trace_path = tl_trace_path(c->tr) };
	const char *store = c->store ? c->store : tl_store_default_path();
	struct tl_fold *fold = NULL;
	char intro[512];
	size_t i, n;
	int err;

	*written = false;
	if (!store)
		return 0;
	cli_note_input(store);
	err = tl_fold_new(&fo, &fold);
	if (!err)
		err = tl_store_read(store, offer, fold, NULL);
	if (err == -ENOENT || (err && !fold)) {
		/* no store, or a trace that is no file (its results cannot be matched) */
		tl_fold_free(fold);
		return 0;
	}
	if (err) {
		fprintf(stderr, "tlreplay report: warning: replay results left out: %s\n", tl_last_error());
		tl_fold_free(fold);
		return 0;
	}
	n = tl_fold_nkept(fold);
	if (!n) {
		tl_fold_free(fold);
		return 0;
	}
	snprintf(intro, sizeof(intro),
		 "The results of tlreplay uid, stat, replay and sweep for this trace in %s (the latest per op, "
		 "device and command, as tlreplay fold picks them), beside the op's CPU time and the GPU time of "
		 "its kernels in the trace.",
		 store);
	hp_section(f, "replay", "Replays", intro);
	hp_table(f, NULL, cols, TL_ARRAY_N(cols));
	for (i = 0; i < n; i++)
		row(f, c->tr, tl_fold_kept(fold, i));
	hp_table_end(f);
	hp_section_end(f);
	tl_fold_free(fold);
	*written = true;
	return 0;
}

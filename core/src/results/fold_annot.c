/* SPDX-License-Identifier: MIT */
/* Fold, part 2: the JSON written into the trace for one op with results:
 * args["tlreplay"] of the op and of its kernels, and the ph:"C" samples of
 * the counter tracks. Perfetto flattens nested args into dotted keys and
 * shows numbers best, so the numbers people look for first sit flat at the
 * top ("cuda_median_us", "replay_over_trace"); the full story is under
 * "replays". */
#include <math.h>
#include <stdio.h>

#include "base/base_internal.h"
#include "results/results_internal.h"

static const cJSON *item(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = item(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = item(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double rec_median(const struct fold_rec *r)
{
	return num(item(r->rec, "time_us"), "median");
}

/* Short name of a device for flat keys: "cpu", "cuda" (cuda:0), "cuda1". */
static void dev_key(const char *dev, char *buf, size_t n)
{
	size_t i = 0;

	if (!strcmp(dev, "cuda:0"))
		dev = "cuda";
	for (; *dev && i + 1 < n; dev++)
		if ((*dev >= 'a' && *dev <= 'z') || (*dev >= 'A' && *dev <= 'Z') ||
		    (*dev >= '0' && *dev <= '9'))
			buf[i++] = *dev;
		else if (*dev != ':')
			buf[i++] = '_';
	buf[i] = 0;
}

/* ------------------------------------------------------------------ per device */

/* What one device's results say, merged over commands: the median of the
 * latest record that is not a counting run (counters perturb timing a
 * little), else of the latest; counters and energy from the latest record
 * that has them. */
struct dev_view {
	const char *device;
	double median, energy;
	cJSON *per_call;	/* {event: per-call value} */
};

static bool dup_number(cJSON *obj, const char *key, double v)
{
	cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (old) {
		cJSON_SetNumberValue(old, v);
		return true;
	}
	return cJSON_AddNumberToObject(obj, key, v) != NULL;
}

static int view_of(const struct fold_op *op, size_t first, size_t n, struct dev_view *v)
{
	const struct fold_rec *timing = NULL, *any = NULL;
	bool *done = calloc(n + 1, sizeof(bool));
	size_t k, i;

	v->device = op->recs[first].device;
	v->median = v->energy = NAN;
	v->per_call = cJSON_CreateObject();
	if (!done || !v->per_call) {
		free(done);
		return -ENOMEM;
	}
	/* visit the records oldest first, so that later ones overwrite */
	for (k = 0; k < n; k++) {
		const struct fold_rec *r = NULL;
		const cJSON *c;
		size_t pick = 0;

		for (i = 0; i < n; i++)
			if (!done[i] && (!r || tl_fold_rec_later(r, &op->recs[first + i]))) {
				r = &op->recs[first + i];
				pick = i;
			}
		done[pick] = true;
		if (isfinite(rec_median(r))) {
			any = r;
			if (strcmp(r->command, "stat"))
				timing = r;
		}
		if (isfinite(num(r->rec, "energy_j_per_call")))
			v->energy = num(r->rec, "energy_j_per_call");
		cJSON_ArrayForEach(c, item(r->rec, "counters")) {
			const char *ev = str(c, "event"), *st = str(c, "status");

			if (ev && isfinite(num(c, "per_call")) && (!st || !strcmp(st, "counted")) &&
			    !dup_number(v->per_call, ev, num(c, "per_call"))) {
				free(done);
				return -ENOMEM;
			}
		}
	}
	if (timing || any)
		v->median = rec_median(timing ? timing : any);
	free(done);
	return 0;
}

/* ------------------------------------------------------------------ replays[] */

static bool copy_key(cJSON *dst, const cJSON *src, const char *key, const char *as)
{
	const cJSON *v = item(src, key);
	cJSON *d;

	if (!v || cJSON_IsNull(v))
		return true;
	d = cJSON_Duplicate(v, true);
	if (!d)
		return false;
	cJSON_AddItemToObject(dst, as ? as : key, d);
	return true;
}

/* "counters": [{event, value, status, per_call, unit, ...}] of a record as
 * {event: value} (or perf's "<not counted>"/"<not supported>"), {event:
 * per_call} and {event: unit}. */
static bool add_counters(cJSON *e, const cJSON *list)
{
	cJSON *vals, *per, *units;
	const cJSON *c;

	if (!cJSON_GetArraySize(list))
		return true;
	vals = cJSON_AddObjectToObject(e, "counters");
	per = cJSON_AddObjectToObject(e, "per_call");
	units = cJSON_CreateObject();
	if (!vals || !per || !units) {
		cJSON_Delete(units);
		return false;
	}
	cJSON_ArrayForEach(c, list) {
		const char *ev = str(c, "event"), *st = str(c, "status"), *unit = str(c, "unit");
		bool ok = true;

		if (!ev || cJSON_GetObjectItemCaseSensitive(vals, ev))
			continue;
		if ((!st || !strcmp(st, "counted")) && isfinite(num(c, "value"))) {
			ok = cJSON_AddNumberToObject(vals, ev, num(c, "value")) != NULL;
			if (ok && isfinite(num(c, "per_call")))
				ok = cJSON_AddNumberToObject(per, ev, num(c, "per_call")) != NULL;
		} else {
			char sentinel[64];

			snprintf(sentinel, sizeof(sentinel), "<%s>", st ? st : "not counted");
			ok = cJSON_AddStringToObject(vals, ev, sentinel) != NULL;
		}
		if (ok && unit && *unit)
			ok = cJSON_AddStringToObject(units, ev, unit) != NULL;
		if (!ok) {
			cJSON_Delete(units);
			return false;
		}
	}
	if (units->child)
		cJSON_AddItemToObject(e, "counter_units", units);
	else
		cJSON_Delete(units);
	return true;
}

static cJSON *replay_entry(const struct fold_rec *r)
{
	static const char *const keys[] = { "command", "device", "device_name", "time_us", "iters",
					    "warmup", "kernels_vs_trace", "energy_j_per_call", "time",
					    "host", "torch", "tlreplay" };
	cJSON *e = cJSON_CreateObject();
	size_t i;

	if (!e)
		return NULL;
	for (i = 0; i < TL_ARRAY_SIZE(keys); i++)
		if (!copy_key(e, r->rec, keys[i], NULL))
			goto fail;
	if (!item(e, "device") && !cJSON_AddStringToObject(e, "device", r->device))
		goto fail;
	if (!add_counters(e, item(r->rec, "counters")) ||
	    !copy_key(e, r->rec, "kernels", "replay_kernels"))
		goto fail;
	return e;
fail:
	cJSON_Delete(e);
	return NULL;
}

/* ------------------------------------------------------------------ op, kernels */

static int find_kernels(struct tl_trace *tr, struct fold_op *op)
{
	struct tl_iv *iv = NULL;
	int64_t n, i;
	size_t m = 0;

	n = tl_event_gpu_events(tr, op->uid, &op->kernels);
	if (n < 0)
		return (int)n;
	iv = calloc((size_t)n + 1, sizeof(*iv));
	if (!iv)
		return -ENOMEM;
	/* the trace's time is of every GPU event below it, as the IR's
	 * gpu_time_us: what a replay of it runs; the kernels it annotates are
	 * the ones it launched itself (a child op annotates its own) */
	for (i = 0; i < n; i++) {
		const struct tl_ev *e = &tr->ev[op->kernels[i]];

		iv[i].s = e->ts;
		iv[i].e = tl_ev_end(e);
		if (tl_event_launcher(tr, op->kernels[i]) == (int64_t)op->uid)
			op->kernels[m++] = op->kernels[i];
	}
	op->nk = m;
	/* to the ns: sums of large float timestamps carry noise below that */
	op->trace_gpu_us = round(tl_union_len(iv, (size_t)n) * 1e3) / 1e3;
	free(iv);
	return 0;
}

/* The flat numbers, on both the op and its kernels. */
static bool add_flat(cJSON *o, const struct dev_view *v, size_t nv, double trace_gpu_us)
{
	const struct dev_view *gpu = NULL;
	char key[96], dk[48];
	size_t i;

	for (i = 0; i < nv; i++) {
		dev_key(v[i].device, dk, sizeof(dk));
		if (isfinite(v[i].median)) {
			snprintf(key, sizeof(key), "%s_median_us", dk);
			if (!dup_number(o, key, v[i].median))
				return false;
			if (!strncmp(dk, "cuda", 4) && (!gpu || !strcmp(dk, "cuda")))
				gpu = &v[i];
		}
		if (isfinite(v[i].energy)) {
			snprintf(key, sizeof(key), "%s_energy_j_per_call", dk);
			if (!dup_number(o, key, v[i].energy))
				return false;
		}
	}
	if (trace_gpu_us > 0 && !cJSON_AddNumberToObject(o, "trace_gpu_us", trace_gpu_us))
		return false;
	if (gpu && trace_gpu_us > 0 &&
	    !cJSON_AddNumberToObject(o, "replay_over_trace", gpu->median / trace_gpu_us))
		return false;
	return true;
}

int tl_fold_annotate(struct tl_trace *tr, struct fold_op *op)
{
	struct dev_view *v = calloc(op->n + 1, sizeof(*v));
	size_t nv = 0, i, j;
	cJSON *reps;
	int err = -ENOMEM;

	if (!v)
		goto out;
	err = find_kernels(tr, op);
	if (err)
		goto out;
	err = -ENOMEM;
	/* recs are sorted by device: one view per run of equal devices */
	for (i = 0; i < op->n; i = j) {
		for (j = i + 1; j < op->n && !strcmp(op->recs[j].device, op->recs[i].device); j++)
			;
		if (view_of(op, i, j - i, &v[nv++]))
			goto out;
	}
	op->args = cJSON_CreateObject();
	op->kargs = cJSON_CreateObject();
	if (!op->args || !op->kargs || !add_flat(op->args, v, nv, op->trace_gpu_us))
		goto out;
	reps = cJSON_AddArrayToObject(op->args, "replays");
	if (!reps)
		goto out;
	for (i = 0; i < op->n; i++) {
		cJSON *e = replay_entry(&op->recs[i]);

		if (!e)
			goto out;
		cJSON_AddItemToArray(reps, e);
	}
	if (!cJSON_AddNumberToObject(op->kargs, "op_uid", (double)op->uid) ||
	    !cJSON_AddStringToObject(op->kargs, "op", tl_ev_name(tr, &tr->ev[op->uid])) ||
	    !add_flat(op->kargs, v, nv, 0))
		goto out;
	if (op->trace_gpu_us > 0 && item(op->args, "replay_over_trace") &&
	    !cJSON_AddNumberToObject(op->kargs, "replay_over_trace",
				     num(op->args, "replay_over_trace")))
		goto out;
	/* the counter tracks: one key per device and metric */
	op->tracks = cJSON_CreateObject();
	if (!op->tracks)
		goto out;
	for (i = 0; i < nv; i++) {
		const cJSON *c;
		char key[256];

		if (isfinite(v[i].median)) {
			snprintf(key, sizeof(key), "%s replay us", v[i].device);
			if (!dup_number(op->tracks, key, v[i].median))
				goto out;
		}
		cJSON_ArrayForEach(c, v[i].per_call) {
			snprintf(key, sizeof(key), "%s %s per call", v[i].device, c->string);
			if (!dup_number(op->tracks, key, c->valuedouble))
				goto out;
		}
		if (isfinite(v[i].energy)) {
			snprintf(key, sizeof(key), "%s energy J per call", v[i].device);
			if (!dup_number(op->tracks, key, v[i].energy))
				goto out;
		}
	}
	err = 0;
out:
	for (i = 0; i < nv; i++)
		cJSON_Delete(v[i].per_call);
	free(v);
	return err == -ENOMEM ? tl_err(err, "out of memory folding results") : err;
}

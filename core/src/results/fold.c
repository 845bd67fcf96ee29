/* SPDX-License-Identifier: MIT */
/* Fold, part 1: which records of the store belong to the trace. Records of
 * other traces are only counted, so a big shared store costs no memory;
 * the trace's own ok results are copied and, per (uid, device, command, events),
 * only the latest is kept. */
#include <stdio.h>
#include <time.h>

#include <tlreplay/store.h>

#include "results/results_internal.h"

static const char *str_or(const cJSON *o, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) && v->valuestring ? v->valuestring : dflt;
}

static void now_iso(char *buf, size_t n)
{
	struct timespec ts;
	struct tm tm;
	size_t k;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	k = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + k, n - k, ".%03uZ", (unsigned)(ts.tv_nsec / 1000000) % 1000u);
}

int tl_fold_new(const struct tl_fold_opts *opts, struct tl_fold **out)
{
	struct tl_fold *f = NULL;
	const cJSON *id = opts ? opts->trace_id : NULL;
	cJSON *made = NULL;
	char when[40];
	int err;

	*out = NULL;
	if (!id) {
		if (!opts || !opts->trace_path)
			return tl_err(-EINVAL, "fold: no trace to match the records against");
		err = tl_store_trace_id(opts->trace_path, &made);
		if (err)
			return err;
		id = made;
	}
	now_iso(when, sizeof(when));
	f = calloc(1, sizeof(*f));
	err = -ENOMEM;
	if (!f)
		goto out;
	f->res.sz = sizeof(f->res);
	f->id = made ? made : cJSON_Duplicate(id, true);
	made = NULL;
	f->folded_at = strdup(opts && opts->folded_at ? opts->folded_at : when);
	if (opts && opts->store)
		f->store = strdup(opts->store);
	if (!f->id || !f->folded_at || (opts && opts->store && !f->store))
		goto out;
	*out = f;
	f = NULL;
	err = 0;
out:
	cJSON_Delete(made);
	tl_fold_free(f);
	return err == -ENOMEM ? tl_err(err, "out of memory") : err;
}

/* The record's trace is ours: same sig and size (the file may have been
 * copied or renamed), else the same absolute path (*path_only). */
static bool same_trace(const cJSON *id, const cJSON *t, bool *path_only)
{
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(t, "sig");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(t, "size");
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(t, "path");
	const char *my_sig = str_or(id, "sig", NULL), *my_path = str_or(id, "path", NULL);
	const cJSON *my_size = cJSON_GetObjectItemCaseSensitive(id, "size");

	*path_only = false;
	if (!cJSON_IsObject(t))
		return false;
	if (cJSON_IsString(sig) && my_sig && !strcasecmp(sig->valuestring, my_sig) &&
	    cJSON_IsNumber(size) && cJSON_IsNumber(my_size) &&
	    size->valuedouble == my_size->valuedouble)
		return true;
	if (cJSON_IsString(path) && my_path && !strcmp(path->valuestring, my_path)) {
		*path_only = true;
		return true;
	}
	return false;
}

int tl_fold_add(struct tl_fold *f, const cJSON *rec)
{
	const cJSON *uid = cJSON_GetObjectItemCaseSensitive(rec, "uid");
	struct fold_rec r = { 0 };
	bool path_only;

	f->res.records++;
	if (!same_trace(f->id, cJSON_GetObjectItemCaseSensitive(rec, "trace"), &path_only)) {
		f->res.other_traces++;
		return 0;
	}
	f->res.this_trace++;
	if (path_only)
		f->res.path_only++;
	if (strcmp(str_or(rec, "status", ""), "ok")) {
		f->res.not_ok++;
		return 0;
	}
	if (!cJSON_IsNumber(uid) || !(uid->valuedouble >= 0 && uid->valuedouble < 9e15) ||
	    uid->valuedouble != (double)(uint64_t)uid->valuedouble) {
		f->res.invalid++;
		return 0;
	}
	r.rec = cJSON_Duplicate(rec, true);
	if (!r.rec)
		return tl_err(-ENOMEM, "out of memory");
	r.uid = (uint64_t)uid->valuedouble;
	/* the uid command's default device is the CPU */
	r.device = str_or(r.rec, "device", "cpu");
	r.command = str_or(r.rec, "command", "");
	r.events = str_or(r.rec, "events", "");
	r.time = str_or(r.rec, "time", "");
	r.order = f->recs.n;
	if (tl_vec_push(&f->recs, r)) {
		cJSON_Delete(r.rec);
		return tl_err(-ENOMEM, "out of memory");
	}
	f->finished = false;
	return 0;
}

bool tl_fold_rec_later(const struct fold_rec *a, const struct fold_rec *b)
{
	/* ISO-8601 UTC times of one format compare as strings */
	int c = *a->time && *b->time ? strcmp(a->time, b->time) : 0;

	return c ? c > 0 : a->order > b->order;
}

static int cmp_rec(const void *pa, const void *pb)
{
	const struct fold_rec *a = pa, *b = pb;
	int c;

	if (a->uid != b->uid)
		return a->uid < b->uid ? -1 : 1;
	if ((c = strcmp(a->device, b->device)))
		return c;
	if ((c = strcmp(a->command, b->command)))
		return c;
	if ((c = strcmp(a->events, b->events)))
		return c;
	return tl_fold_rec_later(a, b) ? 1 : tl_fold_rec_later(b, a) ? -1 : 0;
}

static bool same_group(const struct fold_rec *a, const struct fold_rec *b)
{
	return a->uid == b->uid && !strcmp(a->device, b->device) && !strcmp(a->command, b->command) &&
	       !strcmp(a->events, b->events);
}

void tl_fold_finish(struct tl_fold *f)
{
	size_t i, m = 0;

	if (f->finished)
		return;
	if (f->recs.n > 1)
		tl_qsort(f->recs.v, f->recs.n, sizeof(*f->recs.v), cmp_rec);
	/* the last of each group is the latest */
	for (i = 0; i < f->recs.n; i++) {
		if (i + 1 < f->recs.n && same_group(&f->recs.v[i], &f->recs.v[i + 1])) {
			cJSON_Delete(f->recs.v[i].rec);
			f->res.superseded++;
			continue;
		}
		f->recs.v[m++] = f->recs.v[i];
	}
	f->recs.n = m;
	f->finished = true;
}

void tl_fold_stats(struct tl_fold *f, struct tl_fold_result *res)
{
	tl_fold_finish(f);
	f->res.used = f->recs.n;
	tl_fold_copy_res(res, &f->res);
}

size_t tl_fold_nkept(struct tl_fold *f)
{
	tl_fold_finish(f);
	return f->recs.n;
}

const cJSON *tl_fold_kept(struct tl_fold *f, size_t i)
{
	tl_fold_finish(f);
	return i < f->recs.n ? f->recs.v[i].rec : NULL;
}

void tl_fold_free(struct tl_fold *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->recs.n; i++)
		cJSON_Delete(f->recs.v[i].rec);
	tl_vec_free(&f->recs);
	cJSON_Delete(f->id);
	free(f->store);
	free(f->folded_at);
	free(f);
}

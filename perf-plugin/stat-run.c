/* SPDX-License-Identifier: MIT */
/* Counting the timed region of a replay (stat-run.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "stat-run.h"

/* The counters of one region, opened at its beginning. */
struct stat_region {
	const char *events;
	bool no_scale;
	struct tl_worker *w;
	struct tl_counters *c;
	struct stat_report *rep;
	int err;
};

/* Fold one region's values into the report (events are in the same order each run). */
static int report_add(struct stat_report *rep, const struct tl_counter_value *v, size_t n)
{
	size_t i;

	if (!rep->ev) {
		rep->ev = calloc(n ? n : 1, sizeof(*rep->ev));
		if (!rep->ev)
			return cli_error("out of memory");
		rep->nev = n;
		for (i = 0; i < n; i++) {
			rep->ev[i].name = strdup(v[i].name);
			rep->ev[i].unit = strdup(v[i].unit ? v[i].unit : "");
			rep->ev[i].status = TL_COUNTER_NOT_COUNTED;
			if (!rep->ev[i].name || !rep->ev[i].unit)
				return cli_error("out of memory");
		}
	}
	for (i = 0; i < n && i < rep->nev; i++) {
		struct stat_event *e = &rep->ev[i];

		if (v[i].status == TL_COUNTER_NOT_SUPPORTED) {
			e->status = TL_COUNTER_NOT_SUPPORTED;
			if (!e->why && v[i].why)
				e->why = strdup(v[i].why);
			continue;
		}
		if (e->status == TL_COUNTER_NOT_SUPPORTED)
			continue;
		/* a run where it never ran counts as zero, as perf's average does */
		welford_add(&e->value, v[i].status == TL_COUNTER_COUNTED ? v[i].value : 0);
		if (v[i].status == TL_COUNTER_COUNTED)
			e->status = TL_COUNTER_COUNTED;
		e->raw_sum += v[i].raw;
		e->enabled_ns += v[i].enabled_ns;
		e->running_ns += v[i].running_ns;
	}
	return 0;
}

static int region_begin(void *ctx)
{
	struct stat_region *s = ctx;
	struct tl_counters_opts co = { .sz = sizeof(co), .pid = tl_worker_pid(s->w),
				       .no_scale = s->no_scale };
	int err = tl_counters_open(s->events ? s->events : TL_COUNTERS_DEFAULT_EVENTS, &co, &s->c);

	if (!err)
		err = tl_counters_enable(s->c);
	if (err) {
		s->err = cli_lib_error(err);
		tl_counters_close(s->c);
		s->c = NULL;
	}
	return err ? 1 : 0;
}

static int region_end(void *ctx)
{
	struct stat_region *s = ctx;
	const struct tl_counter_value *v;
	size_t n;
	int err = tl_counters_disable(s->c);

	if (!err)
		err = tl_counters_read(s->c, &v, &n);
	if (err)
		s->err = cli_lib_error(err);
	else if (report_add(s->rep, v, n))
		s->err = 1;
	tl_counters_close(s->c);
	s->c = NULL;
	return s->err ? 1 : 0;
}

/* The counters as the store records them. */
cJSON *stat_counters_json(const struct stat_report *rep)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < rep->nev; i++) {
		const struct stat_event *e = &rep->ev[i];
		cJSON *o = cJSON_CreateObject();
		static const char *const st[] = { "counted", "not counted", "not supported" };

		if (!o)
			break;
		cJSON_AddStringToObject(o, "event", e->name);
		cJSON_AddStringToObject(o, "status", st[e->status]);
		cJSON_AddStringToObject(o, "unit", e->unit);
		if (e->status == TL_COUNTER_COUNTED) {
			cJSON_AddNumberToObject(o, "value", e->value.mean);
			cJSON_AddNumberToObject(o, "raw", e->raw_sum / (double)(rep->runs ? rep->runs : 1));
			cJSON_AddNumberToObject(o, "per_call", e->value.mean / (double)rep->calls_per_run);
			cJSON_AddNumberToObject(o, "variance", welford_noise_pct(&e->value));
		}
		cJSON_AddNumberToObject(o, "enabled_ns", (double)e->enabled_ns);
		cJSON_AddNumberToObject(o, "running_ns", (double)e->running_ns);
		if (e->why)
			cJSON_AddStringToObject(o, "why", e->why);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

void stat_report_free(struct stat_report *rep)
{
	size_t i;

	for (i = 0; i < rep->nev; i++) {
		free(rep->ev[i].name);
		free(rep->ev[i].unit);
		free(rep->ev[i].why);
	}
	free(rep->ev);
}


/* One descriptor per event per worker thread, and a torch worker has dozens
 * of threads: raise the soft limit of open files to the hard one, as perf does. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int stat_check_events(const char *events)
{
	struct tl_counters_opts co = { .sz = sizeof(co) };
	struct tl_counters *c = NULL;
	int err;

	/* open on ourselves and close: the names and the syntax are checked
	 * before any replay runs (an op that fails first would hide them) */
	err = tl_counters_open(events ? events : TL_COUNTERS_DEFAULT_EVENTS, &co, &c);
	tl_counters_close(c);
	return err ? cli_lib_error(err) : 0;
}

int stat_run(const struct replay_opts *ro, struct tl_worker *w, cJSON *entry, const char *events,
	     bool no_scale, unsigned long long repeat, struct perf_ctl *pc, struct stat_report *rep,
	     cJSON **reply)
{
	struct stat_region reg = { .events = events, .no_scale = no_scale, .w = w, .rep = rep };
	struct region_hooks hooks = { .pc = pc, .begin = region_begin, .end = region_end, .ctx = &reg };
	unsigned long long k;

	*reply = NULL;
	raise_nofile();
	for (k = 0; k < repeat; k++) {
		cJSON_Delete(*reply);
		*reply = replay_one(ro, w, entry, replay_region_cb, &hooks);
		if (!*reply)
			return cli_error("out of memory");
		if (reg.err)	/* the counters failed; the reason is printed */
			return 1;
		if (strcmp(reply_status(*reply), "ok"))
			return STAT_RUN_REPLAY_FAILED;
		welford_add(&rep->elapsed_s, hooks.elapsed_s);
		rep->runs++;
		rep->calls_per_run = (long)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(*reply, "times_us"));
	}
	return 0;
}

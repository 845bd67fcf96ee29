/* SPDX-License-Identifier: MIT */
/* Counting the timed region of a replay (stat-run.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <tlreplay/energy.h>

#include "stat/gpu-events.h"
#include "stat/perf-control.h"
#include "stat/stat-run.h"


static int opt_repeat(const struct opt *opt, const char *arg, void *obj)
{
	struct count_opts *c = obj;

	(void)opt;
	if (!parse_u64(arg, &c->repeat) || !c->repeat || c->repeat > 100)
		return cli_error("%s: -r: '%s' is not a number of runs from 1 to 100", c->cmd, arg);
	c->repeat_given = true;
	return 0;
}

const struct opt opts_count[] = {
	OPT_CALLBACK('r', "repeat", "N", opt_repeat, 0, "run the counted region N times (1..100)"),
	OPT_BOOL(0, "no-scale", struct count_opts, no_scale, "do not scale multiplexed counts by enabled/running"),
	OPT_END(),
};

/* The counters of one region, opened at its beginning. */
struct stat_region {
	const struct event_split *sp;
	bool no_scale;
	struct tl_worker *w;
	struct tl_counters *c;
	struct tl_energy *energy;	/* NULL when not asked for or not available */
	uint64_t energy_mj0;
	struct stat_report *rep;
	int err;
};

/* The report's event @name, appended the first time it is seen. */
static struct stat_event *report_event(struct stat_report *rep, const char *name, const char *unit)
{
	struct stat_event *e;
	size_t i;

	for (i = 0; i < rep->nev; i++)
		if (!strcmp(rep->ev[i].name, name))
			return &rep->ev[i];
	e = realloc(rep->ev, (rep->nev + 1) * sizeof(*e));
	if (!e)
		return NULL;
	rep->ev = e;
	e = &rep->ev[rep->nev];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	e->unit = strdup(unit ? unit : "");
	e->status = TL_COUNTER_NOT_COUNTED;
	if (!e->name || !e->unit) {
		free(e->name);
		free(e->unit);
		return NULL;
	}
	rep->nev++;
	return e;
}

static void not_supported(struct stat_event *e, const char *why)
{
	e->status = TL_COUNTER_NOT_SUPPORTED;
	if (!e->why && why)
		e->why = strdup(why);
}

/* One run's value of event @e: a run where it never ran counts as zero, as
 * perf's average does. */
static void add_value(struct stat_event *e, enum tl_counter_status st, double value, double raw,
		      uint64_t ena, uint64_t run)
{
	if (e->status == TL_COUNTER_NOT_SUPPORTED)
		return;
	welford_add(&e->value, st == TL_COUNTER_COUNTED ? value : 0);
	if (st == TL_COUNTER_COUNTED)
		e->status = TL_COUNTER_COUNTED;
	e->raw_sum += raw;
	e->enabled_ns += ena;
	e->running_ns += run;
}

int stat_report_add(struct stat_report *rep, const struct tl_counter_value *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct stat_event *e = report_event(rep, v[i].name, v[i].unit);

		if (!e)
			return cli_error("out of memory");
		if (v[i].status == TL_COUNTER_NOT_SUPPORTED)
			not_supported(e, v[i].why);
		else
			add_value(e, v[i].status, v[i].value, v[i].raw, v[i].enabled_ns, v[i].running_ns);
	}
	return 0;
}

int stat_report_add_gpu(struct stat_report *rep, const char *name, const char *unit, bool counted, double value,
			long calls, bool summed, const char *why)
{
	struct stat_event *e = report_event(rep, name, unit);

	if (!e)
		return cli_error("out of memory");
	e->per_call_value = !summed;
	e->calls = calls > 0 ? calls : 1;
	if (counted)
		add_value(e, TL_COUNTER_COUNTED, value, value, 0, 0);
	else
		not_supported(e, why);
	return 0;
}

/* The worker's GPU metrics of one run: "total" over the "calls" calls of a
 * counting pass ("summed": a count; else a ratio, as "value"), "value" per
 * call. */
static int report_gpu(struct stat_report *rep, const cJSON *reply)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(reply, "gpu_metrics")) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "name"));
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "status"));
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "value");
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "total");
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "calls");
		bool summed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "summed"));
		long calls = cJSON_IsNumber(c) && c->valuedouble >= 1 && c->valuedouble < 1e9 ? (long)c->valuedouble
											      : 1;

		if (!cJSON_IsNumber(t))
			t = v;
		if (name &&
		    stat_report_add_gpu(rep, name, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "unit")),
					st && !strcmp(st, "ok") && cJSON_IsNumber(t),
					cJSON_IsNumber(t) ? t->valuedouble : 0, calls, summed,
					cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "why"))))
			return 1;
	}
	return 0;
}

static int region_begin(void *ctx)
{
	struct stat_region *s = ctx;
	struct tl_counters_opts co = { .sz = sizeof(co), .pid = tl_worker_pid(s->w),
				       .no_scale = s->no_scale };
	int err = 0;

	if (s->sp->perf) {
		err = tl_counters_open(s->sp->perf, &co, &s->c);
		if (!err)
			err = tl_counters_enable(s->c);
		if (err) {
			s->err = cli_lib_error(err);
			tl_counters_close(s->c);
			s->c = NULL;
			return 1;
		}
	}
	/* energy last, so that opening the counters is not in its window */
	if (s->energy && tl_energy_read_mj(s->energy, &s->energy_mj0)) {
		tl_energy_close(s->energy);
		s->energy = NULL;
	}
	return 0;
}

static int region_end(void *ctx)
{
	struct stat_region *s = ctx;
	const struct tl_counter_value *v;
	uint64_t mj;
	size_t n;
	int err = 0;

	if (s->sp->energy_name) {
		struct stat_event *e = report_event(s->rep, s->sp->energy_name, "Joules");

		if (!e)
			s->err = cli_error("out of memory");
		else if (s->energy && !tl_energy_read_mj(s->energy, &mj))
			add_value(e, TL_COUNTER_COUNTED, (double)(mj - s->energy_mj0) / 1e3,
				  (double)(mj - s->energy_mj0), 0, 0);
		else
			not_supported(e, s->energy ? tl_last_error() : "NVML energy is not available");
	}
	if (s->c) {
		err = tl_counters_disable(s->c);
		if (!err)
			err = tl_counters_read(s->c, &v, &n);
		if (err)
			s->err = cli_lib_error(err);
		else if (stat_report_add(s->rep, v, n))
			s->err = 1;
		tl_counters_close(s->c);
		s->c = NULL;
	}
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
			cJSON_AddNumberToObject(o, "per_call", stat_per_call(rep, e));
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
	struct event_split sp;
	int err = 0;

	if (event_split(events, &sp))
		return 1;
	/* open on ourselves and close: the names and the syntax are checked
	 * before any replay runs (an op that fails first would hide them) */
	if (sp.perf)
		err = tl_counters_open(sp.perf, &co, &c);
	tl_counters_close(c);
	event_split_free(&sp);
	return err ? cli_lib_error(err) : 0;
}

/* Where event @name appears in the list the user typed (modifiers that the
 * library added, such as ":u", are ignored). */
static size_t typed_pos(const char *events, const char *name)
{
	size_t n = strcspn(name, ":");
	const char *p = events;

	while ((p = strstr(p, name)) && n != strlen(name) && p[n] != ':' && p[n] != ',' && p[n] && p[n] != '}')
		p++;
	if (!p) {
		char *base = strndup(name, n);

		p = base ? strstr(events, base) : NULL;
		free(base);
	}
	return p ? (size_t)(p - events) : SIZE_MAX;
}

/* The report in the order of the -e list: counters from different places
 * (perf, the worker, NVML) arrive in different orders. */
static void order_as_typed(struct stat_report *rep, const char *events)
{
	size_t i, j;

	for (i = 1; i < rep->nev; i++)	/* insertion sort: stable, few events */
		for (j = i; j > 0 && typed_pos(events, rep->ev[j - 1].name) > typed_pos(events, rep->ev[j].name); j--) {
			struct stat_event t = rep->ev[j];

			rep->ev[j] = rep->ev[j - 1];
			rep->ev[j - 1] = t;
		}
}

/* NVML for the energy event; the reason it is missing goes into the report. */
static struct tl_energy *open_energy(const struct event_split *sp, struct stat_report *rep)
{
	struct tl_energy *en = NULL;
	struct stat_event *e;

	if (sp->energy_dev < 0 || !tl_energy_open(sp->energy_dev, &en))
		return en;
	e = report_event(rep, sp->energy_name, "Joules");
	if (e)
		not_supported(e, tl_last_error());
	return NULL;
}

int stat_run(const struct replay_opts *ro, struct tl_worker *w, cJSON *entry, const char *events,
	     bool no_scale, unsigned long long repeat, struct perf_ctl *pc, struct stat_report *rep,
	     cJSON **reply)
{
	struct event_split sp;
	struct stat_region reg = { .sp = &sp, .no_scale = no_scale, .w = w, .rep = rep };
	struct region_hooks hooks = { .pc = pc, .begin = region_begin, .end = region_end, .ctx = &reg };
	struct replay_opts ro2 = *ro;
	unsigned long long k;
	int rc = 1;

	*reply = NULL;
	if (event_split(events, &sp))
		return 1;
	raise_nofile();
	reg.energy = open_energy(&sp, rep);
	/* NVML's counter moves every 20-100 ms: energy needs a region of >= 1 s */
	if (reg.energy && ro2.min_time_s < tl_energy_min_window_s())
		ro2.min_time_s = tl_energy_min_window_s();
	ro2.gpu_metrics = sp.gpu;
	ro2.gpu_lib = sp.gpu ? gpu_lib_path() : NULL;
	for (k = 0; k < repeat; k++) {
		cJSON_Delete(*reply);
		*reply = replay_one(&ro2, w, entry, replay_region_cb, &hooks);
		if (!*reply) {
			cli_error("out of memory");
			goto out;
		}
		if (reg.err)	/* the counters failed; the reason is printed */
			goto out;
		if (strcmp(reply_status(*reply), "ok")) {
			rc = STAT_RUN_REPLAY_FAILED;
			goto out;
		}
		if (report_gpu(rep, *reply))
			goto out;
		welford_add(&rep->elapsed_s, hooks.elapsed_s);
		rep->runs++;
		rep->calls_per_run = (long)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(*reply, "times_us"));
	}
	order_as_typed(rep, events ? events : TL_COUNTERS_DEFAULT_EVENTS);
	rc = 0;
out:
	tl_energy_close(reg.energy);
	event_split_free(&sp);
	return rc;
}

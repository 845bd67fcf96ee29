/* SPDX-License-Identifier: MIT */
/* perf stat's three output formats (stat-format.h). The layouts follow
 * perf 6.1's stat-display.c as it prints them: the human columns, the -x
 * field order (value, unit, event, [variance,] run time, percent running,
 * metric value, metric unit) and the -j keys, so that scripts written for
 * perf read tlreplay stat unchanged. */
#include <math.h>
#include <string.h>

#include "util/cli.h"
#include "stat/stat-format.h"

double stat_per_call(const struct stat_report *r, const struct stat_event *e)
{
	long calls = e->calls > 0 ? e->calls : r->calls_per_run;

	if (e->per_call_value)
		return e->value.mean;
	return calls > 0 ? e->value.mean / (double)calls : 0;
}

void welford_add(struct welford *w, double x)
{
	double d = x - w->mean;

	w->n++;
	w->mean += d / (double)w->n;
	w->m2 += d * (x - w->mean);
}

double welford_stddev_mean(const struct welford *w)
{
	if (w->n < 2)
		return 0;
	return sqrt(w->m2 / (double)(w->n - 1) / (double)w->n);
}

double welford_noise_pct(const struct welford *w)
{
	return w->mean != 0 ? 100.0 * welford_stddev_mean(w) / fabs(w->mean) : 0;
}

/* What an event name counts, without its modifiers: "cycles:u" -> "cycles";
 * on a hybrid CPU's core PMU, "cpu_atom/cycles/" -> "cycles" with the
 * prefix "cpu_atom/", so that ratios pair events of one PMU, as perf does. */
static void split_name(const char *n, size_t *plen, const char **base, size_t *blen)
{
	const char *slash = strchr(n, '/'), *shut = slash ? strchr(slash + 1, '/') : NULL;

	*plen = 0;
	*base = n;
	if (shut) {
		*plen = (size_t)(slash - n) + 1;
		*base = slash + 1;
		*blen = (size_t)(shut - *base);
	} else {
		*blen = strlen(n);
	}
	*blen = strcspn(*base, ":") < *blen ? strcspn(*base, ":") : *blen;
}

/* The counted event @name on the PMU of @like (none: no PMU prefix). */
static const struct stat_event *find_like(const struct stat_report *r, const char *name,
					  const char *like)
{
	size_t i, lp, lb, np, nb;
	const char *lbase, *nbase;

	split_name(like ? like : "", &lp, &lbase, &lb);
	for (i = 0; i < r->nev; i++) {
		split_name(r->ev[i].name, &np, &nbase, &nb);
		if (np == lp && (!np || !strncmp(r->ev[i].name, like, np)) && strlen(name) == nb &&
		    !strncmp(nbase, name, nb) && r->ev[i].status == TL_COUNTER_COUNTED)
			return &r->ev[i];
	}
	return NULL;
}

static const struct stat_event *find(const struct stat_report *r, const char *name)
{
	return find_like(r, name, NULL);
}

static bool is_any(const char *name, const char *const *set)
{
	size_t plen, len;
	const char *base;

	split_name(name, &plen, &base, &len);
	for (; *set; set++)
		if (strlen(*set) == len && !strncmp(base, *set, len))
			return true;
	return false;
}

/* A rate per second of task time, with perf's K/M/G prefixes. */
static bool rate(double per_s, double *value, const char **unit)
{
	static const char *const units[] = { "/sec", "K/sec", "M/sec", "G/sec" };
	int k = 0;

	while (k < 3 && fabs(per_s) >= 1000) {
		per_s /= 1000;
		k++;
	}
	*value = per_s;
	*unit = units[k];
	return true;
}

bool stat_metric(const struct stat_report *r, size_t i, double *value, const char **unit)
{
	static const char *const clocks[] = { "task-clock", "cpu-clock", NULL };
	static const char *const per_sec[] = { "context-switches", "cs", "cpu-migrations", "migrations",
					       "page-faults", "faults", "minor-faults", "major-faults",
					       "alignment-faults", "emulation-faults", "branches",
					       "branch-instructions", NULL };
	static const struct {
		const char *miss, *of, *unit;
	} ratios[] = {
		{ "branch-misses", "branches", "of all branches" },
		{ "cache-misses", "cache-references", "of all cache refs" },
		{ "L1-dcache-load-misses", "L1-dcache-loads", "of all L1-dcache accesses" },
		{ "LLC-load-misses", "LLC-loads", "of all LL-cache accesses" },
		{ "dTLB-load-misses", "dTLB-loads", "of all dTLB cache accesses" },
		{ "iTLB-load-misses", "iTLB-loads", "of all iTLB cache accesses" },
	};
	const struct stat_event *e = &r->ev[i], *clk = find(r, "task-clock"), *o;
	double v = e->value.mean, task_s = clk ? clk->value.mean / 1e3 : 0;
	size_t k;

	if (e->status != TL_COUNTER_COUNTED)
		return false;
	if (is_any(e->name, clocks)) {
		if (r->elapsed_s.mean <= 0)
			return false;
		*value = v / 1e3 / r->elapsed_s.mean;
		*unit = "CPUs utilized";
		return true;
	}
	if (is_any(e->name, per_sec) && task_s > 0)
		return rate(v / task_s, value, unit);
	if (is_any(e->name, (const char *const[]){ "cycles", "cpu-cycles", NULL }) && task_s > 0) {
		*value = v / (task_s * 1e9);
		*unit = "GHz";
		return true;
	}
	if (is_any(e->name, (const char *const[]){ "instructions", NULL }) &&
	    (o = find_like(r, "cycles", e->name)) &&
	    o->value.mean > 0) {
		*value = v / o->value.mean;
		*unit = "insn per cycle";
		return true;
	}
	for (k = 0; k < TL_ARRAY_N(ratios); k++)
		if (is_any(e->name, (const char *const[]){ ratios[k].miss, NULL }) &&
		    (o = find_like(r, ratios[k].of, e->name)) && o->value.mean > 0) {
			*value = 100 * v / o->value.mean;
			*unit = ratios[k].unit;
			return true;
		}
	return false;
}

static bool is_percent_metric(const char *unit)
{
	return !strncmp(unit, "of all", 6);
}

static void fmt_value(char *buf, size_t n, const struct stat_event *e)
{
	if (e->status == TL_COUNTER_NOT_SUPPORTED)
		snprintf(buf, n, "<not supported>");
	else if (e->status == TL_COUNTER_NOT_COUNTED)
		snprintf(buf, n, "<not counted>");
	else if (*e->unit)	/* msec, Joules...: perf's "%.2f" for non-integer scales */
		snprintf(buf, n, "%.2f", e->value.mean);
	else
		snprintf(buf, n, "%.0f", e->value.mean);
}

static double pct_running(const struct stat_event *e)
{
	return e->enabled_ns ? 100.0 * (double)e->running_ns / (double)e->enabled_ns : 100.0;
}

void stat_print_human(FILE *f, const struct stat_report *r)
{
	size_t i;

	fprintf(f, "\n Performance counter stats for '%s' (%s on %s, %ld calls per run", r->what,
		r->op, r->device, r->calls_per_run);
	if (r->repeat)
		fprintf(f, ", %zu runs", r->runs);
	fputs("):\n\n", f);
	for (i = 0; i < r->nev; i++) {
		const struct stat_event *e = &r->ev[i];
		char val[64];
		double m;
		const char *mu;

		fmt_value(val, sizeof(val), e);
		fprintf(f, "%18s %-4s %-33s", val, e->status == TL_COUNTER_COUNTED ? e->unit : "", e->name);
		if (stat_metric(r, i, &m, &mu)) {
			if (is_percent_metric(mu))
				fprintf(f, "#%8.2f%% %-24s", m, mu);
			else
				fprintf(f, "#%9.3f %-25s", m, mu);
		} else {
			fprintf(f, "%36s", "");
		}
		if (r->repeat && e->status == TL_COUNTER_COUNTED)
			fprintf(f, "( +- %5.2f%% )", welford_noise_pct(&e->value));
		if (e->status == TL_COUNTER_COUNTED && e->running_ns < e->enabled_ns)
			fprintf(f, "  (%.2f%%)", pct_running(e));
		/* a GPU metric counts the calls of one pass, not the timed ones */
		if (e->status == TL_COUNTER_COUNTED && e->calls > 0)
			fprintf(f, "  (%ld call%s)", e->calls, e->calls == 1 ? "" : "s");
		fputc('\n', f);
	}
	fputc('\n', f);
	if (r->repeat)
		fprintf(f, "%18.7f +- %.7f seconds time elapsed  ( +- %5.2f%% )\n", r->elapsed_s.mean,
			welford_stddev_mean(&r->elapsed_s), welford_noise_pct(&r->elapsed_s));
	else
		fprintf(f, "%18.9f seconds time elapsed\n", r->elapsed_s.mean);
	fprintf(f, "%18.9f seconds per call\n", r->calls_per_run > 0 ?
		r->elapsed_s.mean / (double)r->calls_per_run : 0.0);
	fputc('\n', f);
}

void stat_print_csv(FILE *f, const struct stat_report *r, const char *sep, bool per_call)
{
	size_t i;

	for (i = 0; i < r->nev; i++) {
		const struct stat_event *e = &r->ev[i];
		char val[64];
		double m;
		const char *mu;

		fmt_value(val, sizeof(val), e);
		fprintf(f, "%s%s%s%s%s", val, sep, e->status == TL_COUNTER_COUNTED ? e->unit : "", sep,
			e->name);
		if (r->repeat)
			fprintf(f, "%s%.2f%%", sep, welford_noise_pct(&e->value));
		fprintf(f, "%s%llu%s%.2f", sep, (unsigned long long)e->running_ns, sep, pct_running(e));
		if (stat_metric(r, i, &m, &mu))
			fprintf(f, "%s%.3f%s%s\n", sep, m, sep, mu);
		else
			fprintf(f, "%s%s\n", sep, sep);
		/* per call, as one of perf's metric-only lines (earlier fields empty):
		 * asked for only, so that -x has perf's shape, a row per counter */
		if (per_call && e->status == TL_COUNTER_COUNTED && (e->calls > 0 || r->calls_per_run > 0)) {
			fprintf(f, "%s%s", sep, sep);
			if (r->repeat)
				fputs(sep, f);
			fprintf(f, "%s%s%s%.6g%s%s%s%s\n", sep, sep, sep, stat_per_call(r, e),
				sep, *e->unit ? e->unit : "", *e->unit ? " " : "", "per call");
		}
	}
}

void stat_print_json(FILE *f, const struct stat_report *r)
{
	size_t i;

	for (i = 0; i < r->nev; i++) {
		const struct stat_event *e = &r->ev[i];
		double m = 0;
		const char *mu = "";
		bool has = stat_metric(r, i, &m, &mu);

		fputs("{\"counter-value\" : ", f);
		if (e->status == TL_COUNTER_COUNTED) {
			fprintf(f, "\"%f\"", e->value.mean);
		} else {
			fputc('"', f);
			fputs(e->status == TL_COUNTER_NOT_SUPPORTED ? "<not supported>" : "<not counted>", f);
			fputc('"', f);
		}
		fputs(", \"unit\" : ", f);
		json_str(f, e->status == TL_COUNTER_COUNTED ? e->unit : "");
		fputs(", \"event\" : ", f);
		json_str(f, e->name);
		if (r->repeat)
			fprintf(f, ", \"variance\" : %.2f", welford_noise_pct(&e->value));
		fprintf(f, ", \"event-runtime\" : %llu, \"pcnt-running\" : %.2f", (unsigned long long)e->running_ns,
			pct_running(e));
		fprintf(f, ", \"metric-value\" : %f, \"metric-unit\" : ", has ? m : 0.0);
		json_str(f, has ? mu : "");
		/* tlreplay's own keys: perf's parsers ignore them */
		if (e->status == TL_COUNTER_COUNTED && (e->calls > 0 || r->calls_per_run > 0))
			fprintf(f, ", \"per-call\" : %.9g, \"calls\" : %ld", stat_per_call(r, e),
				e->calls > 0 ? e->calls : r->calls_per_run);
		if (e->why) {
			fputs(", \"why\" : ", f);
			json_str(f, e->why);
		}
		fputs("}\n", f);
	}
}

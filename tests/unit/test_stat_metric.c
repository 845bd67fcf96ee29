/* SPDX-License-Identifier: MIT */
/* perf's derived metrics in tlreplay stat (perf-plugin/stat/stat-format.c):
 * insn per cycle and miss ratios pair events of the same PMU, so that on a
 * hybrid CPU cpu_core/instructions/ is divided by cpu_core/cycles/, not by
 * the E-cores' cycles; modifiers do not change what an event counts. */
#include <math.h>
#include <string.h>

#include "../../perf-plugin/stat/stat-format.c"

#include "tap.h"

/* stat_print_json's string writer lives in cli.c, with the whole CLI; these
 * tests print nothing, so a plain quoted writer is enough to link. */
void json_str(FILE *f, const char *s)
{
	fprintf(f, "\"%s\"", s);
}

static struct stat_event ev(const char *name, double v)
{
	struct stat_event e = { .name = (char *)name, .unit = (char *)"", .status = TL_COUNTER_COUNTED };

	welford_add(&e.value, v);
	return e;
}

/* The metric of event @i of @r: its value when it has one with @unit. */
static bool metric_is(const struct stat_report *r, size_t i, double want, const char *unit)
{
	double v = 0;
	const char *u = NULL;

	if (!stat_metric(r, i, &v, &u)) {
		diag("%s: no metric", r->ev[i].name);
		return false;
	}
	if (strcmp(u, unit) || fabs(v - want) > 1e-9 * fabs(want)) {
		diag("%s: %g %s, want %g %s", r->ev[i].name, v, u, want, unit);
		return false;
	}
	return true;
}

int main(void)
{
	struct stat_event hy[] = {
		ev("task-clock", 1000.0),	/* msec: 1 s of task time */
		ev("cpu_atom/cycles/", 1e9),
		ev("cpu_core/cycles/", 4e9),
		ev("cpu_atom/instructions/", 1e9),
		ev("cpu_core/instructions/", 8e9),
		ev("cpu_core/branches/", 1e6),
		ev("cpu_core/branch-misses/", 1e4),
		ev("cpu_atom/branch-misses/", 1e4),
	};
	struct stat_event plain[] = {
		ev("task-clock", 500.0),
		ev("cycles:u", 1e9),
		ev("instructions:u", 3e9),
		ev("cache-references", 1e6),
		ev("cache-misses", 2.5e5),
	};
	struct stat_report r = { .ev = hy, .nev = TL_ARRAY_N(hy), .runs = 1, .calls_per_run = 1 };
	double v;
	const char *u;

	plan(11);
	welford_add(&r.elapsed_s, 1.0);
	ok(metric_is(&r, 3, 1.0, "insn per cycle") && metric_is(&r, 4, 2.0, "insn per cycle"),
	   "hybrid: insn per cycle of each core PMU over its own cycles");
	ok(metric_is(&r, 1, 1.0, "GHz") && metric_is(&r, 2, 4.0, "GHz"), "hybrid: GHz of each core PMU");
	ok(metric_is(&r, 6, 1.0, "of all branches"), "hybrid: branch-miss ratio within one PMU");
	ok(!stat_metric(&r, 7, &v, &u), "hybrid: no ratio against another PMU's branches");
	ok(metric_is(&r, 5, 1.0, "M/sec"), "hybrid: branches per second of task time");

	r.ev = plain;
	r.nev = TL_ARRAY_N(plain);
	ok(metric_is(&r, 2, 3.0, "insn per cycle"), "instructions:u over cycles:u");
	ok(metric_is(&r, 1, 2.0, "GHz"), "cycles:u over 0.5 s of task time");
	ok(metric_is(&r, 4, 25.0, "of all cache refs"), "cache-miss ratio");
	ok(metric_is(&r, 0, 0.5, "CPUs utilized"), "task-clock: CPUs utilized");

	/* GPU metrics count the calls of a pass (5 here), not the timed ones
	 * (100): a count's counter-value is its total over them, per-call its
	 * share; a ratio is the same per call */
	{
		struct stat_event g[] = { ev("nvgpu/dram__bytes_read.sum/", 5000.0),
					  ev("nvgpu/sm__throughput.avg.pct_of_peak_sustained_elapsed/", 8.4) };
		struct stat_report gr = { .ev = g, .nev = 2, .runs = 1, .calls_per_run = 100 };
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		g[0].calls = g[1].calls = 5;
		g[1].per_call_value = true;
		ok(stat_per_call(&gr, &g[0]) == 1000.0 && stat_per_call(&gr, &g[1]) == 8.4,
		   "GPU per call: a count / its pass's calls, a ratio as is");
		stat_print_json(f, &gr);
		fclose(f);
		ok(buf && strstr(buf, "\"counter-value\" : \"5000.000000\"") &&
			   strstr(buf, "\"per-call\" : 1000, \"calls\" : 5") &&
			   strstr(buf, "\"per-call\" : 8.4, \"calls\" : 5"),
		   "GPU -j: counter-value the total, per-call and the pass's calls (%s)", buf ? buf : "");
		free(buf);
	}
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/* tlreplay kreplay: replay kernel launches that `tlreplay record` recorded,
 * alone, in this process: timed with CUDA events, verified against the
 * recorded outputs, counted with -e, and with --grid/--block over a grid of
 * launch configurations (RecordReplay's grid search). */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <tlreplay/counters.h>
#include <tlreplay/kreplay.h>
#include <tlreplay/replay.h>
#include <tlreplay/store.h>

#include <dlfcn.h>

#include "builtin.h"
#include "stat/kreplay-run.h"
#include "stat/gpu-events.h"
#include "replay/results.h"
#include "stat/stat-format.h"
#include "stat/stat-run.h"
#include "chart/sweep-chart.h"


/* --device as everywhere else names a backend: "cuda" or "cuda:N" (a
 * recording replays on CUDA only); a bare N, its first spelling, still
 * works. */
static int opt_kdevice(const struct opt *opt, const char *arg, void *obj)
{
	struct kreplay_opts *o = obj;
	const char *n = arg;
	char *end;

	(void)opt;
	if (!strcmp(arg, "cuda")) {
		o->device = 0;
		return 0;
	}
	if (!strncmp(arg, "cuda:", 5))
		n = arg + 5;
	errno = 0;
	o->device = strtoull(n, &end, 10);
	if (!*n || *end || errno || *n == '-' || o->device > 1024)
		return cli_error("kreplay: bad --device '%s' (cuda or cuda:N: a recording replays on CUDA)", arg);
	return 0;
}

static const struct opt kreplay_opts_table[] = {
	OPT_STRING('k', "kernel", "REGEX", struct kreplay_opts, kernel,
		   "replay the launches whose kernel name matches REGEX, or\n"
		   "is REGEX (a demangled name); default: every launch"),
	OPT_STRING(0, "launch", "N", struct kreplay_opts, launch, "replay launch N of the database only (from 0)"),
	OPT_U64('r', "iters", "N", struct kreplay_opts, reps, "timed launches (default 20)"),
	OPT_U64(0, "warmup", "N", struct kreplay_opts, warmup, "untimed launches first (default 3)"),
	OPT_BOOL(0, "flush-l2", struct kreplay_opts, flush_l2, "flush the L2 cache before every launch"),
	OPT_BOOL(0, "verify", struct kreplay_opts, verify,
		 "compare the memory after a launch with the recorded\n"
		 "outputs and name the allocations that differ (exit 1)"),
	OPT_STRING(0, "tolerance", "T[:TYPE]", struct kreplay_opts, tolerance,
		   "with --verify: accept elements of TYPE (f32, f16, bf16,\n"
		   "f64; default f32) within |a-b| <= T + T*|b|"),
	OPT_STRING(0, "grid", "LIST", struct kreplay_opts, grid,
		   "search launch configurations: grid sizes, X or XxYxZ,\n"
		   "comma-separated (default: the recorded grid)"),
	OPT_STRING(0, "block", "LIST", struct kreplay_opts, block,
		   "... and block sizes (default: the recorded block)"),
	OPT_STRING(0, "chart", "FILE", struct kreplay_opts, chart,
		   "with --grid/--block: draw time per configuration into\n"
		   "FILE (.svg, or .png through rsvg-convert)"),
	OPT_STRING('e', "event", "EVENTS", struct kreplay_opts, events,
		   "count perf events over the timed launches, as perf stat\n"
		   "takes them (cycles,instructions,...), and GPU metrics as\n"
		   "ncu names them, nvgpu/dram__bytes_read.sum/ (CUPTI, one\n"
		   "launch per pass)"),
	OPT_CALLBACK(0, "device", "DEV", opt_kdevice, 0, "cuda (default) or cuda:N: the CUDA device to replay on"),
	OPT_USE(opts_output_format, offsetof(struct kreplay_opts, co), "field-separator", NULL),
	OPT_USE(opts_output_format, offsetof(struct kreplay_opts, co), "json", NULL),
	OPT_USE(opts_output_format, offsetof(struct kreplay_opts, co), "output", NULL),
	OPT_STRING(0, "store", "FILE", struct kreplay_opts, store,
		   "the results store (default $TLREPLAY_STORE, else\n"
		   "~/.local/state/tlreplay/results.jsonl)"),
	OPT_BOOL(0, "no-store", struct kreplay_opts, no_store, "do not append results to the store"),
	OPT_HELP(),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(kreplay, kreplay_opts_table, "replay recorded kernel launches alone: time, verify, tune",
       "usage: tlreplay kreplay [DB] [-k REGEX | --launch N] [-r N] [--warmup N] [--flush-l2]\n"
       "                        [--verify [--tolerance T[:TYPE]]] [-e EVENTS]\n"
       "                        [--grid LIST] [--block LIST] [--chart FILE] [-x SEP | -j] [-o FILE]\n"
       "\n"
       "Replay launches recorded by `tlreplay record` (DB, default tlreplay.kdb) in this\n"
       "process: every recorded allocation back at its address, the module loaded from\n"
       "its image, the kernel launched with its recorded arguments, timed with CUDA\n"
       "events, the memory it changes restored before each launch. --verify compares the\n"
       "outputs with the recorded ones. --grid/--block launch every configuration of the\n"
       "lists that the kernel can take, verify each, and print one CSV row per\n"
       "configuration. Results go to the results store, for `tlreplay fold`.\n"
       "\n");
/* clang-format on */

/* ------------------------------------------------------------ options */

static int parse_tolerance(const char *s, double *tol, enum tl_kdtype *dt)
{
	static const struct {
		const char *name;
		enum tl_kdtype dt;
	} types[] = { { "f32", TL_KDT_F32 }, { "f16", TL_KDT_F16 }, { "bf16", TL_KDT_BF16 }, { "f64", TL_KDT_F64 } };
	char *end;
	size_t i;

	errno = 0;
	*tol = strtod(s, &end);
	if (errno || end == s || !isfinite(*tol) || *tol < 0)
		goto bad;
	*dt = TL_KDT_F32;
	if (!*end)
		return 0;
	if (*end != ':')
		goto bad;
	for (i = 0; i < TL_ARRAY_N(types); i++)
		if (!strcmp(end + 1, types[i].name)) {
			*dt = types[i].dt;
			return 0;
		}
bad:
	return cli_error("kreplay: bad --tolerance '%s' (T or T:TYPE, TYPE one of f32 f16 bf16 f64)", s);
}

/* ------------------------------------------------------------ the command */

/* Spaces left out: Kineto's demangler and libstdc++'s space templates differently. */
static bool same_name(const char *a, const char *b)
{
	for (;; a++, b++) {
		while (*a == ' ')
			a++;
		while (*b == ' ')
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
	}
}

/* -k: the pattern matches the kernel's demangled or mangled name, or is one
 * of them (when it is not a regular expression, or matches nothing). */
static bool kernel_matches(const struct tl_kdb_launch *l, const char *pat, const regex_t *re)
{
	if (re && (!regexec(re, l->demangled, 0, NULL, 0) || !regexec(re, l->kernel, 0, NULL, 0)))
		return true;
	return same_name(pat, l->demangled) || same_name(pat, l->kernel);
}

static int cmd_kreplay(int argc, char **argv)
{
	struct kreplay_opts o = { .reps = 20, .warmup = 3 };
	struct tl_kdb *db = NULL;
	struct out_fmt f = { 0 };
	const char *path = "tlreplay.kdb";
	regex_t re;
	bool have_re = false, failed = false, differs = false;
	size_t i, n = 0, pick = (size_t)-1;
	enum tl_kdtype dt = TL_KDT_F32;
	double tol = 0;
	int rc = 1, err;

	if (!opts_parse(&kreplay_cmd, argc, argv, &o, &rc))
		goto out;
	if (optind < argc)
		path = argv[optind++];
	if (cli_no_args("kreplay", argc, argv) || cli_check_format("kreplay", &o.co))
		goto out;
	if (!o.reps || o.reps > 1000000 || o.warmup > 1000000) {
		rc = cli_error("kreplay: bad -r %llu / --warmup %llu (1 to 1000000 timed launches)", o.reps, o.warmup);
		goto out;
	}
	if (o.tolerance && (!o.verify && !o.grid && !o.block)) {
		rc = cli_error("kreplay: --tolerance goes with --verify (or --grid/--block)");
		goto out;
	}
	if (o.tolerance && parse_tolerance(o.tolerance, &tol, &dt))
		goto out;
	if (o.chart && !o.grid && !o.block) {
		rc = cli_error("kreplay: --chart draws a --grid/--block search");
		goto out;
	}
	if (o.events && (o.grid || o.block)) {
		rc = cli_error("kreplay: -e counts one configuration; leave out --grid/--block");
		goto out;
	}
	if (o.events && stat_check_events(o.events))
		goto out;
	if (o.launch) {
		char *end;

		errno = 0;
		pick = strtoul(o.launch, &end, 10);
		if (errno || end == o.launch || *end || *o.launch == '-') {
			rc = cli_error("kreplay: bad --launch '%s' (a launch's index in the database, from 0)", o.launch);
			goto out;
		}
	}
	/* a demangled name ("f<int>(float*, int)") is no regular expression:
	 * a pattern that does not compile is matched as a whole name */
	if (o.kernel && !regcomp(&re, o.kernel, REG_EXTENDED | REG_NOSUB))
		have_re = true;
	if ((err = tl_kdb_open(path, &db))) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (pick != (size_t)-1 && pick >= tl_kdb_count(db)) {
		rc = cli_error("kreplay: %s has no launch %zu (it has %zu)", path, pick, tl_kdb_count(db));
		goto out;
	}
	if (out_open_opts(&f, &o.co))
		goto out;
	if (f.sep && !o.grid && !o.block) {
		const char *cols[] = { "launch", "kernel", "grid", "block", "shared_bytes", "device", "iters",
				       "median_us", "mean_us", "std_us", "min_us", "max_us", "trace_us", "verify" };

		for (i = 0; i < TL_ARRAY_N(cols); i++)
			out_field(&f, cols[i], i + 1 == TL_ARRAY_N(cols));
	}
	if ((o.grid || o.block) && !f.sep && !f.json)
		f.sep = ",";
	for (i = 0; i < tl_kdb_count(db); i++) {
		const struct tl_kdb_launch *l = tl_kdb_launch(db, i);
		struct run r = { .l = l, .idx = i };
		cJSON *rec;

		if ((pick != (size_t)-1 && i != pick) || (o.kernel && !kernel_matches(l, o.kernel, have_re ? &re : NULL)))
			continue;
		n++;
		if (o.grid || o.block) {
			if (kreplay_grid_search(&o, db, i, tol, dt, &f))
				failed = true;
			continue;
		}
		if (kreplay_run_one(&o, db, &r, tol, dt)) {
			failed = true;
			rec = kreplay_run_record(&o, db, &r, NULL, tl_last_error());
		} else {
			kreplay_print_run(&f, &r, r.device);
			if (r.counted && !f.sep && !f.json)
				stat_print_human(f.f, &r.rep);
			differs |= r.verified && !r.matched;
			rec = kreplay_run_record(&o, db, &r, r.device, NULL);
		}
		if (kreplay_store(&o, rec))
			failed = true;
		cJSON_Delete(rec);
		tl_kverify_clear(&r.v);
		stat_report_free(&r.rep);
	}
	if (!n) {
		out_close(&f, true);
		rc = cli_error("kreplay: no launch in %s matches%s%s", path, o.kernel ? " " : "",
			       o.kernel ? o.kernel : "");
		goto out;
	}
	if (out_close(&f, failed))
		failed = true;
	rc = failed || differs ? 1 : 0;
out:
	if (have_re)
		regfree(&re);
	tl_kdb_free(db);
	return rc;
}

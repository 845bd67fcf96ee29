/* SPDX-License-Identifier: MIT */
/* The sweep chart (perf-plugin/chart/sweep-chart.h). The unit tests link only
 * libtlreplay.a, so the chart's four files are compiled into this program
 * (they need nothing of the CLI but cli_error(), defined here to keep the
 * message). The SVG is checked with Python's xml.etree: well-formed, one bar
 * per op and series, labels escaped, no NaN coordinates; PNG output when
 * rsvg-convert is in PATH. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../perf-plugin/chart/chart-svg.c"
#include "../../perf-plugin/chart/chart-roofline.c"
#include "../../perf-plugin/chart/chart-render.c"
#include "../../perf-plugin/chart/sweep-chart.c"

#include "cli_error_stub.h"
#include "tap.h"

static char dir[] = "/tmp/test_chart.XXXXXX";
static const char *python;

/* Counts of the SVG's bars, plot points and texts, and what is wrong with it:
 * the output of check.py (below), "ERROR ..." when it does not parse. */
static const char check_py[] =
	"import math, re, sys\n"
	"import xml.etree.ElementTree as ET\n"
	"try:\n"
	"    root = ET.parse(sys.argv[1]).getroot()\n"
	"except ET.ParseError as e:\n"
	"    print('ERROR', e); sys.exit(0)\n"
	"ns = '{http://www.w3.org/2000/svg}'\n"
	"count = {'replay': 0, 'trace': 0, 'ctr': 0, 'pt': 0}\n"
	"bad = 0\n"
	"for el in root.iter():\n"
	"    cls = (el.get('class') or '').split()\n"
	"    for k in count:\n"
	"        if k in cls and el.tag in (ns + 'rect', ns + 'circle'):\n"
	"            count[k] += 1\n"
	"    for a in ('x', 'y', 'width', 'height', 'cx', 'cy', 'r', 'x1', 'y1', 'x2', 'y2'):\n"
	"        v = el.get(a)\n"
	"        if v is not None and not math.isfinite(float(v)):\n"
	"            bad += 1\n"
	"    for v in re.split(r'[ ,]+', (el.get('points') or '').strip()):\n"
	"        if v and not math.isfinite(float(v)):\n"
	"            bad += 1\n"
	"texts = [''.join(t.itertext()) for t in root.iter(ns + 'text')]\n"
	"print('replay=%d trace=%d ctr=%d pt=%d bad=%d height=%s' % (count['replay'], count['trace'],\n"
	"      count['ctr'], count['pt'], bad, root.get('height')))\n"
	"for t in texts:\n"
	"    print('text', t)\n";

struct svg_facts {
	bool parsed;
	int replay, trace, ctr, pt, bad;
	double height;
	char texts[16384];	/* every text, one a line */
};

static bool inspect(const char *svg, struct svg_facts *sf)
{
	char cmd[4400], line[1024];
	FILE *p;
	size_t used = 0;

	memset(sf, 0, sizeof(*sf));
	snprintf(cmd, sizeof(cmd), "'%s' '%s/check.py' '%s'", python, dir, svg);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		if (!strncmp(line, "replay=", 7)) {
			sf->parsed = sscanf(line, "replay=%d trace=%d ctr=%d pt=%d bad=%d height=%lf", &sf->replay,
					    &sf->trace, &sf->ctr, &sf->pt, &sf->bad, &sf->height) == 6;
		} else if (!strncmp(line, "text ", 5) && used + strlen(line) < sizeof(sf->texts)) {
			memcpy(sf->texts + used, line + 5, strlen(line + 5) + 1);
			used += strlen(line + 5);
		} else if (!strncmp(line, "ERROR", 5)) {
			diag("%s", line);
		}
	}
	pclose(p);
	return sf->parsed;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) && (buf = calloc(1, (size_t)n + 1)))
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
	fclose(f);
	return buf;
}

/* No "x.tmp.XXXXXX" left behind in the test directory. */
static bool no_temp_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool clean = true;

	while (d && (e = readdir(d)))
		if (strstr(e->d_name, ".tmp."))
			clean = false;
	if (d)
		closedir(d);
	return clean;
}

static void path_in_dir(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

/* Three ops with holes: B has no replay and no FLOPs, C no trace time;
 * "cycles" has no value anywhere (no panel), "instructions" two. */
static const struct chart_counter ctr_a[] = { { "instructions", 1e6 }, { "cycles", NAN }, { "l2 <misses> & co", 5e3 } };
static const struct chart_counter ctr_c[] = { { "instructions", 2e5 } };
static const struct chart_op holes[] = {
	{ "aten::foo<T>&bar (uid 1)", "[2,3] <f32> & more", 10, "cuda:0", 12, 2e6, 1e5, ctr_a, 3 },
	{ "aten::index_select (uid 2)", NULL, NAN, "cuda:0", 5, NAN, 800, NULL, 0 },
	{ "aten::mm (uid 3)", "[4,4] x [4,4]", 3, "cuda:0", NAN, 1e6, 1e3, ctr_c, 1 },
};

static void test_refusals(void)
{
	char p[512];

	path_in_dir(p, sizeof(p), "none.svg");
	last_error[0] = '\0';
	ok(chart_write(p, holes, 0, NULL) == 1 && strstr(last_error, "no ops"), "n = 0 refused: %s", last_error);
	ok(access(p, F_OK) && errno == ENOENT, "n = 0 writes nothing");
	path_in_dir(p, sizeof(p), "chart.jpg");
	ok(chart_write(p, holes, 3, NULL) == 1 && strstr(last_error, ".svg or .png"), "unknown extension refused: %s",
	   last_error);
	path_in_dir(p, sizeof(p), "sub.svg");
	mkdir(p, 0755);
	ok(chart_write(p, holes, 3, NULL) == 1 && strstr(last_error, "is a directory"), "a directory is refused: %s",
	   last_error);
	rmdir(p);
	ok(no_temp_files(), "no temporary file left after failures");
}

/* A device behind the name is written in place, not replaced by a rename. */
static void test_device(void)
{
	struct stat st;
	char p[512];

	path_in_dir(p, sizeof(p), "null.svg");
	if (symlink("/dev/null", p)) {
		skip("cannot make a symlink");
		return;
	}
	ok(chart_write(p, holes, 3, NULL) == 0 && !lstat(p, &st) && S_ISLNK(st.st_mode) && !stat("/dev/null", &st) &&
		   S_ISCHR(st.st_mode),
	   "a name for /dev/null: written through, the device stays");
}

static void test_svg(void)
{
	struct chart_opts o = { .title = "sweep of <bert> & co", .subtitle = "trace a&b.json \xc2\xb7 cuda:0",
				.peak_gflops = 989000, .peak_gbs = 3350 };
	struct svg_facts sf;
	char p[512], *raw;

	path_in_dir(p, sizeof(p), "holes.svg");
	ok(chart_write(p, holes, 3, &o) == 0, "SVG with missing values written");
	ok(no_temp_files(), "written atomically: no temporary file left");
	raw = slurp(p);
	ok(raw && strstr(raw, "aten::foo&lt;T&gt;&amp;bar") && !strstr(raw, "<T>"), "op names XML-escaped");
	ok(raw && strstr(raw, "sweep of &lt;bert&gt; &amp; co") && strstr(raw, "l2 &lt;misses&gt; &amp; co"),
	   "title and event names XML-escaped");
	ok(raw && strstr(raw, "font-family=\"sans-serif\""), "sans-serif text");
	ok(raw && !strstr(raw, ">cycles<"), "an event without values has no panel");
	free(raw);
	if (!python) {
		skip("no python3 to parse the SVG");
		return;
	}
	if (!ok(inspect(p, &sf), "well-formed XML (xml.etree parses it)"))
		return;
	ok(sf.replay == 2 && sf.trace == 2, "one bar per op with a time: %d replay, %d trace (2, 2)", sf.replay, sf.trace);
	ok(sf.ctr == 3, "counter bars: instructions 2 + l2 1 (%d)", sf.ctr);
	ok(sf.pt == 2, "roofline points for the 2 ops with FLOPs, bytes and a time (%d)", sf.pt);
	ok(sf.bad == 0, "no NaN or infinite coordinate (%d)", sf.bad);
	ok(strstr(sf.texts, "aten::foo<T>&bar (uid 1)\n") != NULL, "the label reads back unescaped");
	ok(strstr(sf.texts, "no replay\n") && strstr(sf.texts, "no GPU time in the trace\n") &&
		   strstr(sf.texts, "FLOPs unknown\n"),
	   "missing values are said, not drawn");
	ok(!strstr(sf.texts, "nan") && !strstr(sf.texts, "inf "), "no nan/inf in the text");
}

/* kreplay's search chart: rows as given, named by noun, no trace series
 * when no row has a trace time. */
static void test_configurations(void)
{
	struct chart_op rows[3] = {
		{ "grid 4x1x1, block 64x1x1 (recorded)", "outputs match", 5.0, "gpu", NAN, NAN, NAN, NULL, 0 },
		{ "grid 2x1x1, block 32x1x1", "outputs match", 2.0, "gpu", NAN, NAN, NAN, NULL, 0 },
		{ "grid 1x1x1, block 2048x1x1", "too many threads", NAN, "gpu", NAN, NAN, NAN, NULL, 0 },
	};
	struct chart_opts o = { .title = "search", .noun = "configurations", .keep_order = true };
	struct svg_facts sf;
	char p[512], *raw, *a, *b;

	path_in_dir(p, sizeof(p), "configs.svg");
	ok(chart_write(p, rows, 3, &o) == 0, "a configuration search written");
	raw = slurp(p);
	a = raw ? strstr(raw, "(recorded)") : NULL;
	b = raw ? strstr(raw, "block 32x1x1") : NULL;
	ok(a && b && a < b, "rows in the order given (the baseline first, though slower)");
	ok(raw && strstr(raw, "3 configurations") && !strstr(raw, "3 ops"), "counted by the noun given");
	ok(raw && !strstr(raw, "GPU time in the trace"), "no trace series when no row has a trace time");
	free(raw);
	if (python && ok(inspect(p, &sf), "configurations: well-formed"))
		ok(sf.replay == 2 && sf.trace == 0, "two replay bars, no trace bar (%d, %d)", sf.replay, sf.trace);
}

/* 25 ops, every value there: one bar per op per series; taller than 5. */
static void test_sizes(void)
{
	static struct chart_counter ctr[25][2];
	struct chart_op ops[25];
	char labels[25][96], p[512];
	struct svg_facts sf;
	double h5 = 0;
	size_t i, n;

	for (i = 0; i < 25; i++) {
		snprintf(labels[i], sizeof(labels[i]), "aten::_scaled_dot_product_efficient_attention_backward_%zu (uid %zu)",
			 i, 1000 + i);
		ctr[i][0] = (struct chart_counter){ "instructions", 1e5 * (double)(i + 1) };
		ctr[i][1] = (struct chart_counter){ "cycles", 2e5 * (double)(i + 1) };
		ops[i] = (struct chart_op){ labels[i], "[8,16,2048,128] bf16", 3.0 * (double)(i + 1), "cuda:0",
					    2.9 * (double)(i + 1), 1e9 * (double)(i + 1), 1e7, ctr[i], 2 };
	}
	for (n = 5; n <= 25; n += 20) {
		path_in_dir(p, sizeof(p), n == 5 ? "five.svg" : "many.svg");
		if (!ok(chart_write(p, ops, n, NULL) == 0, "%zu ops written", n) || !python ||
		    !ok(inspect(p, &sf), "%zu ops: well-formed", n)) {
			skip("no SVG to inspect");
			continue;
		}
		ok(sf.replay == (int)n && sf.trace == (int)n && sf.ctr == 2 * (int)n && sf.pt == (int)n,
		   "%zu ops: one bar per op per series (%d %d %d %d)", n, sf.replay, sf.trace, sf.ctr, sf.pt);
		if (n == 5)
			ok(strstr(sf.texts, "\xe2\x80\xa6 (uid 1000)\n") != NULL, "a long label is cut before its (uid N)");
		if (n == 5)
			h5 = sf.height;
		else
			ok(sf.height > h5, "the page grows with the ops (%g > %g)", sf.height, h5);
	}
}

static void test_png(void)
{
	static const unsigned char magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	char *rsvg = find_in_path("rsvg-convert"), *path_env = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	unsigned char head[8] = { 0 };
	char p[512];
	FILE *f;

	path_in_dir(p, sizeof(p), "holes.png");
	if (!rsvg) {
		skip("rsvg-convert not in PATH (apt install librsvg2-bin)");
		skip("rsvg-convert not in PATH");
	} else {
		ok(chart_write(p, holes, 3, NULL) == 0, "PNG written");
		f = fopen(p, "rb");
		ok(f && fread(head, 1, 8, f) == 8 && !memcmp(head, magic, 8), "the .png is a PNG");
		if (f)
			fclose(f);
	}
	free(rsvg);
	/* without rsvg-convert: one clear line */
	setenv("PATH", "/nonexistent", 1);
	path_in_dir(p, sizeof(p), "none.png");
	ok(chart_write(p, holes, 3, NULL) == 1 && strstr(last_error, "PNG output needs rsvg-convert") &&
		   strstr(last_error, ".svg works without it"),
	   "PNG without rsvg-convert: %s", last_error);
	if (path_env)
		setenv("PATH", path_env, 1);
	free(path_env);
	ok(no_temp_files(), "no temporary file left after PNG output");
}

int main(void)
{
	char p[512];
	FILE *f;
	DIR *d;
	struct dirent *e;

	python = getenv("PYTHON");
	if (!python || !*python)
		python = "/usr/bin/python3";
	if (access(python, X_OK))
		python = NULL;
	if (!mkdtemp(dir))
		skip_all("cannot create a temporary directory");
	path_in_dir(p, sizeof(p), "check.py");
	f = fopen(p, "w");
	if (!f || fputs(check_py, f) < 0 || fclose(f))
		python = NULL;

	test_refusals();
	test_svg();
	test_configurations();
	test_device();
	test_sizes();
	test_png();

	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		path_in_dir(p, sizeof(p), e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	return done_testing();
}

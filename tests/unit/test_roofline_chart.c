/* SPDX-License-Identifier: MIT */
/* The roofline chart of a device (perf-plugin/chart/chart-roofline.h), compiled
 * in as test_chart does with the sweep chart. A small roofline is drawn to
 * SVG and checked with Python's xml.etree (well-formed, one marker per
 * drawable row, a legend entry per category, the slope and one flat roof
 * per dtype, axis labels with units, the device in the title, no NaN),
 * then to PNG when rsvg-convert is in PATH. TLREPLAY_ROOFLINE_PNG=FILE
 * keeps the PNG (docs/img/roofline-example.png is made so). */
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

#include "cli_error_stub.h"
#include "tap.h"

static char dir[] = "/tmp/test_roofline_chart.XXXXXX";

static const char check_py[] =
	"import math, re, sys\n"
	"import xml.etree.ElementTree as ET\n"
	"ns = '{http://www.w3.org/2000/svg}'\n"
	"try:\n"
	"    root = ET.parse(sys.argv[1]).getroot()\n"
	"except ET.ParseError as e:\n"
	"    print('ERROR', e); sys.exit(0)\n"
	"pts = [c for c in root.iter(ns + 'circle') if 'pt' in (c.get('class') or '').split()]\n"
	"keys = [c for g in root.iter(ns + 'g') if g.get('class') == 'legend' for c in g.iter(ns + 'circle')]\n"
	"flat = [p for p in root.iter(ns + 'polyline') if (p.get('class') or '') == 'roof flat']\n"
	"slope = [p for p in root.iter(ns + 'polyline') if (p.get('class') or '') == 'roof slope']\n"
	"bad = 0\n"
	"for el in root.iter():\n"
	"    for a in ('x', 'y', 'width', 'height', 'cx', 'cy', 'r', 'x1', 'y1', 'x2', 'y2'):\n"
	"        v = el.get(a)\n"
	"        if v is not None and not math.isfinite(float(v)):\n"
	"            bad += 1\n"
	"    for v in re.split(r'[ ,]+', (el.get('points') or '').strip()):\n"
	"        if v and not math.isfinite(float(v)):\n"
	"            bad += 1\n"
	"radii = sorted(float(c.get('r')) for c in pts)\n"
	"colors = len(set(c.get('fill') for c in pts))\n"
	"print('pt=%d key=%d flat=%d slope=%d bad=%d colors=%d rmin=%.2f rmax=%.2f' % (len(pts), len(keys),\n"
	"      len(flat), len(slope), bad, colors, radii[0] if radii else 0, radii[-1] if radii else 0))\n"
	"for t in root.iter(ns + 'text'):\n"
	"    print('text', ''.join(t.itertext()))\n";

struct facts {
	bool parsed;
	int pt, key, flat, slope, bad, colors;
	double rmin, rmax;
	char texts[16384];
};

static bool inspect(const char *svg, struct facts *sf)
{
	char cmd[1200], line[1024];
	size_t used = 0;
	FILE *p;

	memset(sf, 0, sizeof(*sf));
	snprintf(cmd, sizeof(cmd), "python3 '%s/check.py' '%s'", dir, svg);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		if (!strncmp(line, "pt=", 3))
			sf->parsed = sscanf(line, "pt=%d key=%d flat=%d slope=%d bad=%d colors=%d rmin=%lf rmax=%lf", &sf->pt,
					    &sf->key, &sf->flat, &sf->slope, &sf->bad, &sf->colors, &sf->rmin,
					    &sf->rmax) == 8;
		else if (!strncmp(line, "text ", 5) && used + strlen(line) < sizeof(sf->texts)) {
			memcpy(sf->texts + used, line + 5, strlen(line + 5) + 1);
			used += strlen(line + 5);
		} else if (!strncmp(line, "ERROR", 5))
			diag("%s", line);
	}
	pclose(p);
	return sf->parsed;
}

/* A small model step on an H100: GEMMs (bf16, and one fp32 on the CUDA
 * cores), attention, elementwise and a norm; two rows cannot be drawn. */
static const struct roofline_point rows[] = {
	{ 1365.3, 687e12, 4200, "GEMM", "matrix_bf16", "aten::mm 4096x4096x4096" },
	{ 120.0, 310e12, 1800, "GEMM", "matrix_bf16", "aten::addmm 512x4096x4096" },
	{ 15.5, 41e12, 950, "GEMM", "matrix_bf16", "aten::mm 16x4096x4096" },
	{ 40.0, 30e12, 600, "GEMM", "matrix_fp32", "aten::mm fp32" },
	{ 220.0, 420e12, 2600, "SDPA", "matrix_bf16", "flash attention fwd" },
	{ 0.083, 0.21e12, 700, "elementwise", "vector_bf16", "aten::add" },
	{ 0.25, 0.6e12, 500, "elementwise", "vector_bf16", "aten::mul" },
	{ 0.125, 0.28e12, 40, "elementwise", "vector_bf16", "aten::gelu" },
	{ 1.2, 2.4e12, 650, "normalization", "vector_fp32", "aten::native_layer_norm" },
	{ 0.5, 0.9e12, 120, "reduce", "vector_fp32", "aten::sum" },
	{ NAN, NAN, 300, "copy", NULL, "aten::copy_" },
	{ 0, 0, 30, "other", NULL, "aten::view" },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static const struct tl_gpu *named_mi300x(void)
{
	return tl_gpu_find(NULL, "AMD Instinct MI300X", 206141652992ULL, 304, 9, 4);
}

int main(void)
{
	struct tl_gpu_roof r;
	const struct tl_gpu *h100 = tl_gpu_find(NULL, "NVIDIA H100 80GB HBM3", 85018279936ULL, 132, 9, 0);
	struct roofline_opts o = { NULL, "bert <small> & co", 4 };
	struct facts sf;
	char path[512], png[512], cmd[1200];
	const char *keep = getenv("TLREPLAY_ROOFLINE_PNG");
	unsigned char head[24];
	struct stat st;
	FILE *f;

	if (!mkdtemp(dir))
		skip_all("no temporary directory");
	snprintf(path, sizeof(path), "%s/check.py", dir);
	f = fopen(path, "w");
	if (!f || fputs(check_py, f) < 0 || fclose(f))
		skip_all("cannot write check.py");
	if (system("python3 -c 'import xml.etree.ElementTree' 2>/dev/null"))
		skip_all("python3 with xml.etree is needed to check the SVG");
	if (!ok(h100 != NULL, "H100 SXM found"))
		return done_testing();
	/* the rows' numbers are what tl_gpu_roof() makes of them */
	ok(!tl_gpu_roof(h100, "matrix_bf16", 137438953472.0, 100663296.0, 200, &r) && fabs(r.intensity - 1365.33) < 0.01,
	   "a GEMM row's intensity from tl_gpu_roof()");

	snprintf(path, sizeof(path), "%s/roof.svg", dir);
	ok(roofline_chart_write(path, h100, rows, NROWS, &o) == 0, "SVG written: %s", last_error);
	ok(inspect(path, &sf), "the SVG parses");
	ok(sf.pt == 10, "one marker per drawable row: %d of %zu (2 have no FLOPs or bytes)", sf.pt, NROWS);
	ok(sf.key == 5 && sf.colors == 5, "a legend entry and a colour per category: %d entries, %d colours", sf.key,
	   sf.colors);
	ok(sf.slope == 1 && sf.flat == 3, "the bandwidth slope and 3 flat roofs (bf16 matrix, bf16 vector, fp32 vector; matrix_fp32 is fp32 vector): %d, %d",
	   sf.slope, sf.flat);
	ok(!sf.bad, "no NaN or infinite coordinate");
	ok(sf.rmax > 17 && sf.rmin >= D_RMIN && sf.rmax / sf.rmin > 5, "marker sizes follow GPU time (r %.1f .. %.1f)",
	   sf.rmin, sf.rmax);
	ok(strstr(sf.texts, "Roofline: H100 SXM") != NULL, "the title names the device");
	ok(strstr(sf.texts, "arithmetic intensity (FLOP/byte)") && strstr(sf.texts, "achieved FLOP/s") &&
		   strstr(sf.texts, "TFLOP/s\n"),
	   "axis labels with units");
	ok(strstr(sf.texts, "bf16 matrix 989 TFLOP/s") && strstr(sf.texts, "fp32 vector 66.9 TFLOP/s") &&
		   strstr(sf.texts, "3.35 TB/s"),
	   "roofs labelled with their dtype and peak, the slope with the bandwidth");
	ok(strstr(sf.texts, "bert <small> & co") && strstr(sf.texts, "GEMM  7.55 ms, 4") &&
		   strstr(sf.texts, "2 rows without FLOPs or bytes not drawn"),
	   "subtitle, legend entries with GPU time and rows, undrawn rows counted");
	ok(strstr(sf.texts, "aten::mm 4096x4096x4096") && !strstr(sf.texts, "aten::gelu"),
	   "the 4 rows of most GPU time are labelled, the others not");

	/* twelve categories: nine colours, the other three one grey entry */
	{
		static const char *const cats[12] = { "c0", "c1", "c2", "c3", "c4", "c5",
						      "c6", "c7", "c8", "c9", "c10", "c11" };
		struct roofline_point many[12];
		size_t i;

		for (i = 0; i < 12; i++)
			many[i] = (struct roofline_point){ 1.0 + (double)i, 1e12, 100.0 * (double)(12 - i), cats[i],
							   "vector_fp32", NULL };
		snprintf(path, sizeof(path), "%s/many.svg", dir);
		ok(roofline_chart_write(path, named_mi300x(), many, 12, NULL) == 0 && inspect(path, &sf) && sf.pt == 12 &&
			   sf.key == 10 && sf.colors == 10 && strstr(sf.texts, "3 more categories  600 \xc2\xb5s, 3") &&
			   strstr(sf.texts, "Roofline: MI300X"),
		   "12 categories: 9 coloured, the 3 of least GPU time one grey legend entry");
	}

	/* no rows at all: still a chart, with the device's main roofs */
	snprintf(path, sizeof(path), "%s/empty.svg", dir);
	ok(roofline_chart_write(path, h100, rows, 0, NULL) == 0 && inspect(path, &sf) && sf.pt == 0 && sf.flat == 2 &&
		   !sf.bad,
	   "no rows: the highest matrix roof and vector fp32");
	ok(roofline_chart_write(path, NULL, rows, NROWS, NULL) == 1 && strstr(last_error, "no device"),
	   "no device: refused (%s)", last_error);

	snprintf(png, sizeof(png), "%s", keep && *keep ? keep : "");
	if (!png[0])
		snprintf(png, sizeof(png), "%s/roof.png", dir);
	if (system("command -v rsvg-convert >/dev/null 2>&1")) {
		skip("rsvg-convert not in PATH: no PNG");
	} else {
		ok(roofline_chart_write(png, h100, rows, NROWS, &o) == 0, "PNG written: %s", last_error);
		f = fopen(png, "rb");
		ok(f && fread(head, 1, sizeof(head), f) == sizeof(head) && !memcmp(head, "\x89PNG\r\n\x1a\n", 8) &&
			   ((unsigned)head[16] << 24 | (unsigned)head[17] << 16 | head[18] << 8 | head[19]) == (unsigned)D_W,
		   "a PNG %.0f px wide", D_W);
		if (f)
			fclose(f);
		st.st_size = -1;
		ok(!stat(png, &st) && st.st_size < 200 * 1024, "under 200 KB");
		diag("%s: %lld bytes", png, (long long)st.st_size);
	}
	if (getenv("TLREPLAY_KEEP"))
		return done_testing();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	return done_testing();
}

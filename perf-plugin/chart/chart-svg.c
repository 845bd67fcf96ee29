/* SPDX-License-Identifier: MIT */
/* SVG primitives, number formats and axis ticks of the sweep chart. Text is
 * sized without font metrics: widths are estimated generously so that
 * truncated labels never run into their neighbours. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "chart/chart-svg.h"

/* Average advance of DejaVu Sans (fontconfig's sans-serif on Debian) is
 * about 0.55 em over op names; 0.6 leaves a margin for wider fonts. */
#define EM_PER_CHAR 0.6

void svg_begin(FILE *f, double w, double h)
{
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
		"<style>\n"
		"text { font-family: sans-serif; fill: " CH_TEXT "; }\n"
		".title { font-size: %dpx; font-weight: bold; }\n"
		".sub { font-size: %dpx; fill: " CH_DIM "; }\n"
		".h { font-size: %dpx; font-weight: bold; }\n"
		".h2 { font-size: %dpx; font-weight: bold; }\n"
		".lbl { font-size: %dpx; }\n"
		".det, .tick, .cap { font-size: %dpx; fill: " CH_DIM "; }\n"
		".val { font-size: %dpx; }\n"
		".note { font-size: %dpx; fill: " CH_DIM "; font-style: italic; }\n"
		".num { font-size: %dpx; font-weight: bold; }\n"
		"</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
		w, h, w, h, FS_TITLE, FS_SUB, FS_H, FS_LBL, FS_LBL, FS_SMALL, FS_SMALL, FS_SMALL, FS_SMALL, w, h);
}

void svg_end(FILE *f)
{
	fputs("</svg>\n", f);
}

size_t svg_utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return p[0] >= 0x20 || p[0] == '\t' ? 1 : 0;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[0] == 0xe0 && p[1] < 0xa0) ||
		    (p[0] == 0xed && p[1] >= 0xa0))
			return 0;
		/* U+FFFE and U+FFFF are not XML characters */
		return p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe ? 0 : 3;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80 ||
		    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

size_t svg_cp_count(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, l;

	while (*p) {
		l = svg_utf8_len(p);
		p += l ? l : 1;
		n++;
	}
	return n;
}

void svg_escape(FILE *f, const char *s, size_t maxcp)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t l;

	for (; *p && maxcp; maxcp--) {
		l = svg_utf8_len(p);
		if (!l) {
			fputc('?', f);
			p++;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\t': fputc(' ', f); break;
		default: fwrite(p, 1, l, f);
		}
		p += l;
	}
}

double svg_text_width(const char *s, double px)
{
	return (double)svg_cp_count(s ? s : "") * EM_PER_CHAR * px;
}

static void text_open(FILE *f, double x, double y, const char *anchor, const char *cls, const char *extra)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"%s\"", x, y, cls);
	if (anchor && strcmp(anchor, "start"))
		fprintf(f, " text-anchor=\"%s\"", anchor);
	if (extra)
		fprintf(f, " %s", extra);
	fputc('>', f);
}

/* How many code points of a @n-code-point text fit in @max_w px with an
 * ellipsis after them; SIZE_MAX when the whole text fits. */
static size_t fit(size_t n, double px, double max_w)
{
	double room;

	if (max_w <= 0 || (double)n * EM_PER_CHAR * px <= max_w)
		return SIZE_MAX;
	room = floor(max_w / (EM_PER_CHAR * px));
	return room > 1 ? (size_t)room - 1 : 0;
}

void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, double px, double max_w,
	      const char *extra, const char *s)
{
	size_t keep = fit(svg_cp_count(s ? s : ""), px, max_w);

	text_open(f, x, y, anchor, cls, extra);
	svg_escape(f, s, keep);
	if (keep != SIZE_MAX)
		fputs("\xe2\x80\xa6", f);	/* … */
	fputs("</text>\n", f);
}

void svg_label(FILE *f, double x, double y, const char *cls, double px, double max_w, const char *s)
{
	const char *tail = NULL, *p;
	size_t n, nt, keep;

	s = s ? s : "";
	n = svg_cp_count(s);
	/* the last " (...)" at the end: "(uid 48)" tells ops of one name apart */
	if (n && s[strlen(s) - 1] == ')')
		for (p = s; (p = strstr(p, " (")); p++)
			tail = p;
	nt = tail ? svg_cp_count(tail) : 0;
	keep = fit(n, px, max_w);
	if (keep == SIZE_MAX || !tail || nt > 24 || keep < nt + 8) {
		svg_text(f, x, y, "start", cls, px, max_w, NULL, s);
		return;
	}
	text_open(f, x, y, "start", cls, NULL);
	svg_escape(f, s, keep - nt);
	fputs("\xe2\x80\xa6", f);
	svg_escape(f, tail, SIZE_MAX);
	fputs("</text>\n", f);
}

void svg_rect(FILE *f, double x, double y, double w, double h, const char *fill)
{
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x, y, w > 0 ? w : 0,
		h > 0 ? h : 0, fill);
}

void svg_bar(FILE *f, double x, double y, double w, double h, const char *fill, const char *series)
{
	fprintf(f, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", series, x,
		y, w > 0 ? w : 0, h > 0 ? h : 0, fill);
}

void svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *stroke, double width,
	      const char *dash)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.2g\"", x1, y1,
		x2, y2, stroke, width);
	if (dash)
		fprintf(f, " stroke-dasharray=\"%s\"", dash);
	fputs("/>\n", f);
}

/* ------------------------------------------------------------------ numbers */

/* @v (0 <= v < 1000) with 3 significant digits, trailing zeros dropped. */
static void sig3(char *buf, size_t n, double v)
{
	char *dot, *e;

	if (v >= 99.95 || v == 0)
		snprintf(buf, n, "%.0f", v);
	else if (v >= 9.995)
		snprintf(buf, n, "%.1f", v);
	else if (v >= 0.9995)
		snprintf(buf, n, "%.2f", v);
	else
		snprintf(buf, n, "%.3g", v);
	dot = strchr(buf, '.');
	if (!dot || strchr(buf, 'e'))
		return;
	e = buf + strlen(buf);
	while (e > dot && (e[-1] == '0' || e[-1] == '.'))
		*--e = '\0';
}

void fmt_time_us(char *buf, size_t n, double us)
{
	static const char *const units[] = { "ns", "\xc2\xb5s", "ms", "s" };
	double v = us * 1e3;
	size_t u = 0;

	if (!isfinite(us)) {
		snprintf(buf, n, "\xe2\x80\x93");	/* – */
		return;
	}
	/* pick the unit after rounding: 999.96 us is "1 ms" */
	while (u + 1 < sizeof(units) / sizeof(units[0]) && fabs(v) >= 999.5) {
		v /= 1e3;
		u++;
	}
	sig3(buf, n, fabs(v));
	snprintf(buf + strlen(buf), n - strlen(buf), " %s", units[u]);
}

void fmt_si(char *buf, size_t n, double v, const char *unit)
{
	static const char prefixes[] = " kMGTPE";
	double a = fabs(v);
	size_t p = 0;
	char num[32];

	if (!isfinite(v)) {
		snprintf(buf, n, "\xe2\x80\x93");
		return;
	}
	while (p + 1 < sizeof(prefixes) - 1 && a >= 999.5) {
		a /= 1e3;
		p++;
	}
	sig3(num, sizeof(num), a);
	if (unit && *unit)
		snprintf(buf, n, "%s%s %.*s%s", v < 0 ? "-" : "", num, p ? 1 : 0, &prefixes[p], unit);
	else
		snprintf(buf, n, "%s%s%.*s", v < 0 ? "-" : "", num, p ? 1 : 0, &prefixes[p]);
}

void nice_ticks(double max, double *step, double *end)
{
	double raw, mag, r;

	if (!(max > 0) || !isfinite(max)) {
		*step = 1;
		*end = 1;
		return;
	}
	raw = max / 4;
	mag = pow(10, floor(log10(raw)));
	r = raw / mag;
	*step = (r <= 1 ? 1 : r <= 2 ? 2 : r <= 2.5 ? 2.5 : r <= 5 ? 5 : 10) * mag;
	*end = ceil(max / *step - 1e-9) * *step;
}

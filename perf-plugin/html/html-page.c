/* SPDX-License-Identifier: MIT */
/* Pieces of the HTML report's page (html-page.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "chart/chart-svg.h"
#include "html/html-page.h"

/* The next character of @p: its length (0 at the end) and whether it is
 * one the page may show (valid UTF-8, not a control character). */
static size_t next_cp(const unsigned char *p, bool *valid)
{
	size_t l = svg_utf8_len(p);

	*valid = l > 0;
	return *p ? (l ? l : 1) : 0;
}

void hp_esc(FILE *f, const char *s, size_t maxcp)
{
	svg_escape(f, s, maxcp);
	if (svg_cp_count(s ? s : "") > maxcp)
		fputs("\xe2\x80\xa6", f);	/* … */
}

void hp_json_str(FILE *f, const char *s, size_t maxcp)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t l;
	bool valid;

	fputc('"', f);
	for (; *p && maxcp; p += l, maxcp--) {
		l = next_cp(p, &valid);
		if (!valid) {
			fputc('?', f);
			continue;
		}
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '<': fputs("\\u003c", f); break;
		case '>': fputs("\\u003e", f); break;
		case '&': fputs("\\u0026", f); break;
		case '\t': fputs("\\t", f); break;
		default: fwrite(p, 1, l, f);
		}
	}
	if (*p)
		fputs("\xe2\x80\xa6", f);
	fputc('"', f);
}

void hp_section(FILE *f, const char *id, const char *title, const char *intro)
{
	fprintf(f, "<section id=\"%s\">\n<h2>", id);
	hp_esc(f, title, SIZE_MAX);
	fputs("</h2>\n", f);
	if (intro)
		hp_p(f, "intro", intro);
}

void hp_section_end(FILE *f)
{
	fputs("</section>\n", f);
}

void hp_h3(FILE *f, const char *title)
{
	fputs("<h3>", f);
	hp_esc(f, title, SIZE_MAX);
	fputs("</h3>\n", f);
}

void hp_p(FILE *f, const char *cls, const char *text)
{
	if (cls)
		fprintf(f, "<p class=\"%s\">", cls);
	else
		fputs("<p>", f);
	hp_esc(f, text, SIZE_MAX);
	fputs("</p>\n", f);
}

void hp_table(FILE *f, const char *cls, const char *const *cols, size_t n)
{
	size_t i;

	fprintf(f, "<div class=\"tw\"><table%s%s%s>\n<thead><tr>", cls ? " class=\"" : "", cls ? cls : "",
		cls ? "\"" : "");
	for (i = 0; i < n; i++) {
		bool num = cols[i][0] == '#';

		fputs(num ? "<th class=\"n\">" : "<th>", f);
		hp_esc(f, cols[i] + num, SIZE_MAX);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
}

void hp_table_end(FILE *f)
{
	fputs("</tbody></table></div>\n", f);
}

void hp_tr(FILE *f)
{
	fputs("<tr>", f);
}

void hp_tr_end(FILE *f)
{
	fputs("</tr>\n", f);
}

static void td_text(FILE *f, const char *cls, const char *s, size_t maxcp)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = 0, l;
	bool valid;

	/* its length in code points, to know whether it is shortened */
	while ((l = next_cp(p, &valid))) {
		p += l;
		n++;
	}
	if (n > maxcp) {
		fprintf(f, "<td class=\"%s\" title=\"", cls);
		hp_esc(f, s, SIZE_MAX);
		fputs("\">", f);
	} else {
		fprintf(f, "<td class=\"%s\">", cls);
	}
	hp_esc(f, s, maxcp);
	fputs("</td>", f);
}

void hp_td(FILE *f, const char *s, size_t maxcp)
{
	td_text(f, "t", s, maxcp);
}

void hp_td_wrap(FILE *f, const char *s, size_t maxcp)
{
	td_text(f, "w", s, maxcp);
}

void hp_td_num(FILE *f, const char *fmt, double v)
{
	fputs("<td class=\"n\">", f);
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("\xe2\x80\x93", f);	/* – */
	fputs("</td>", f);
}

void hp_td_count(FILE *f, unsigned long long v)
{
	fprintf(f, "<td class=\"n\">%llu</td>", v);
}

void hp_td_time(FILE *f, double us)
{
	char b[32];

	if (!isfinite(us)) {
		hp_td_num(f, "%g", us);
		return;
	}
	if (us == 0) {
		fputs("<td class=\"n\">0</td>", f);
		return;
	}
	fmt_time_us(b, sizeof(b), us);
	fprintf(f, "<td class=\"n\">%s</td>", b);
}

void hp_td_pct(FILE *f, double pct, const char *color)
{
	double w = isfinite(pct) ? fmin(fmax(pct, 0), 100) : 0;

	if (!isfinite(pct)) {
		hp_td_num(f, "%g", pct);
		return;
	}
	fprintf(f,
		"<td class=\"n pct\"><span class=\"pb\" style=\"width:%.1f%%;background:%s\"></span>"
		"<span class=\"pv\">%.1f%%</span></td>",
		w, color, pct);
}

/* The geometry of hp_bars(), in the SVG's own px (it scales to the page). */
#define BW 1000.0	/* width */
#define BL 250.0	/* label column: 30 characters of 12 px */
#define BN 110.0	/* note column */
#define BH 22.0	/* row pitch */
#define BT 15.0	/* bar thickness */

void hp_bars(FILE *f, const char *id, const struct hp_bar_row *rows, size_t n, bool normalize)
{
	double top = 0, x, w, bar_w = BW - BL - BN - 10, h = (double)n * BH + 6;
	size_t i, k;

	for (i = 0; i < n; i++)
		top = fmax(top, rows[i].total);
	fprintf(f,
		"<svg class=\"tl-chart bars\" id=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		"role=\"img\">\n",
		id, BW, h, BW, h);
	for (i = 0; i < n; i++) {
		const struct hp_bar_row *r = &rows[i];
		double y = 3 + (double)i * BH, scale = normalize ? (r->total > 0 ? bar_w / r->total : 0)
								 : (top > 0 ? bar_w / top : 0);
		char note[48];

		if (i % 2)
			fprintf(f, "<rect x=\"0\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f5f6f8\"/>\n", y - 3,
				BW, BH);
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" class=\"bl\" text-anchor=\"end\"><title>", BL - 8, y + BT - 3);
		hp_esc(f, r->label, SIZE_MAX);
		fputs("</title>", f);
		hp_esc(f, r->label, 30);
		fputs("</text>\n", f);
		x = BL;
		for (k = 0; k < r->nseg; k++) {
			const struct hp_seg *s = &r->seg[k];

			if (!(s->v > 0))
				continue;
			w = s->v * scale;
			fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"><title>", x, y,
				w, BT, s->color);
			hp_esc(f, s->label, SIZE_MAX);
			fmt_time_us(note, sizeof(note), s->v);
			fprintf(f, ": %s (%.1f%%)</title></rect>\n", note, r->total > 0 ? s->v / r->total * 100 : 0);
			x += w;
		}
		if (!r->note)
			fmt_time_us(note, sizeof(note), r->total);
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" class=\"bv\">", BW - BN + 4, y + BT - 3);
		hp_esc(f, r->note ? r->note : note, 24);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}

void hp_legend(FILE *f, const struct hp_seg *segs, size_t n)
{
	size_t i;

	fputs("<div class=\"legend\">", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "<span><i style=\"background:%s\"></i>", segs[i].color);
		hp_esc(f, segs[i].label, SIZE_MAX);
		fputs("</span>", f);
	}
	fputs("</div>\n", f);
}

static void base64(FILE *f, const unsigned char *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		fputc(tab[v >> 18], f);
		fputc(tab[v >> 12 & 63], f);
		fputc(tab[v >> 6 & 63], f);
		fputc(tab[v & 63], f);
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)p[i] << 16;

		fprintf(f, "%c%c==", tab[v >> 18], tab[v >> 12 & 63]);
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;

		fprintf(f, "%c%c%c=", tab[v >> 18], tab[v >> 12 & 63], tab[v >> 6 & 63]);
	}
}

void hp_img_svg(FILE *f, const char *svg, size_t len, const char *alt, const char *cls)
{
	fprintf(f, "<img class=\"%s\" alt=\"", cls ? cls : "tl-chart");
	hp_esc(f, alt, SIZE_MAX);
	fputs("\" src=\"data:image/svg+xml;base64,", f);
	base64(f, (const unsigned char *)svg, len);
	fputs("\">\n", f);
}

/* SPDX-License-Identifier: MIT */
/* Internals of the sweep chart (sweep-chart.h): SVG drawing primitives,
 * number formats and axis ticks (chart-svg.c), the roofline panel
 * (chart-roofline.c) and the file output (chart-render.c). */
#ifndef TLREPLAY_CHART_SVG_H
#define TLREPLAY_CHART_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "chart/sweep-chart.h"

/* Canvas width, margins and the palette, shared by every panel. */
#define CH_W 1200.0
#define CH_MARGIN 24.0
#define CH_REPLAY "#3b6fb6"	/* replay median: blue */
#define CH_TRACE "#e08a2e"	/* trace GPU time: orange */
#define CH_COUNTER "#3a9e8f"	/* counters: teal */
#define CH_ROOF "#555555"
#define CH_GRID "#e3e3e3"
#define CH_TEXT "#222222"
#define CH_DIM "#6b6b6b"	/* secondary text */
#define CH_STRIPE "#f5f6f8"	/* every other row */

/* Font sizes (px) of the stylesheet's text classes. */
#define FS_TITLE 20		/* "title" */
#define FS_H 15			/* "h": panel heading */
#define FS_LBL 13		/* "lbl": op labels; "h2": small panel headings */
#define FS_SUB 12		/* "sub": the subtitle */
#define FS_SMALL 11		/* "det" details, "tick", "cap" captions, "val" values, "note", "num" */

/* ------------------------------------------------------------------ drawing */

/* <svg> of @w x @h px with its stylesheet and a white background. */
void svg_begin(FILE *f, double w, double h);
void svg_end(FILE *f);

/* @s XML-escaped (& < > " '), control characters and invalid UTF-8
 * replaced by '?', at most @maxcp code points (SIZE_MAX: all). */
void svg_escape(FILE *f, const char *s, size_t maxcp);
/* Code points of @s (an invalid byte counts as one, as it prints as '?'). */
size_t svg_cp_count(const char *s);

/* Length of the valid UTF-8 sequence at @p that XML accepts (a character,
 * not a control one but tab); 0 if none. */
size_t svg_utf8_len(const unsigned char *p);

/* Estimated width in px of @s at font size @px (no font metrics: DejaVu
 * Sans averages about 0.6 em a character; wide enough to never overlap). */
double svg_text_width(const char *s, double px);

/* Text at (@x, @y baseline), @anchor "start", "middle" or "end", of class
 * @cls, shortened with an ellipsis to fit @max_w px (0: no limit); @px is
 * the class's font size (for the fit). @extra: more attributes or NULL. */
void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, double px, double max_w,
	      const char *extra, const char *s);
/* An op label at (@x, @y), left-aligned: like svg_text(), but a trailing
 * " (uid 48)" survives the shortening ("aten::_scaled_dot_pr… (uid 48)"). */
void svg_label(FILE *f, double x, double y, const char *cls, double px, double max_w, const char *s);
void svg_rect(FILE *f, double x, double y, double w, double h, const char *fill);
/* A data bar, of class "bar @series" so that tests and scripts can find
 * the bars of one series ("replay", "trace", "ctr"). */
void svg_bar(FILE *f, double x, double y, double w, double h, const char *fill, const char *series);
void svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *stroke, double width,
	      const char *dash);

/* ------------------------------------------------------------------ numbers */

/* A duration: "850 ns", "12.3 µs", "4.56 ms", "1.20 s" (3 significant digits). */
void fmt_time_us(char *buf, size_t n, double us);
/* A number with an SI prefix and 3 significant digits: "0.5", "999",
 * "1.23k", "45.6M"; with a @unit: "1.5 TFLOP/s", "12 B/s". */
void fmt_si(char *buf, size_t n, double v, const char *unit);

/* Nice linear ticks for [0, @max]: @step (1, 2, 2.5 or 5 x 10^k, about
 * four of them) and the axis end (a multiple of it). */
void nice_ticks(double max, double *step, double *end);

/* ------------------------------------------------------------------ panels */

/* The ops in chart order with their 1-based rank (panels refer to ops by it). */
struct chart_row {
	const struct chart_op *op;
	int rank;
};

/* Whether the roofline panel has something to show (an op with FLOPs and bytes). */
bool roofline_wanted(const struct chart_row *rows, size_t n);
/* Draw the roofline panel with its top at @y; returns its height. */
double roofline_panel(FILE *f, double y, const struct chart_row *rows, size_t n, const struct chart_opts *o);

/* ------------------------------------------------------------------ output */

/* Write @svg (@len bytes) to @path atomically: SVG as is, PNG through
 * rsvg-convert. Returns 0, or 1 after cli_error(). */
int chart_render(const char *path, const char *svg, size_t len);

#endif

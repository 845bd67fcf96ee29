/* SPDX-License-Identifier: MIT */
/* The HTML report's page pieces (html-page.c): escaping for text, attributes
 * and JSON inside a <script>, sections, tables, the SVG bars and legends the
 * sections share, the palette, and SVG charts embedded as data: images. The
 * sections (html-sections.c, html-gantt.c, html-ranks.c, html-replay.c) draw
 * with these; none of them computes an analysis. */
#ifndef TLREPLAY_HTML_PAGE_H
#define TLREPLAY_HTML_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The palette: one colour per kind of GPU time everywhere on the page (the
 * breakdown bars, the timeline, the legends), chosen to tell apart for
 * colour-blind readers (blue, orange, teal; red/amber/grey for idle). */
#define HP_COMPUTE "#3b6fb6"
#define HP_COMM "#e08a2e"
#define HP_MEMCPY "#2a9d8f"
#define HP_IDLE "#d9dce1"
#define HP_BUSY "#5b6b82"
#define HP_LAUNCH "#8e6bb8"
#define HP_HOST_WAIT "#c44e52"
#define HP_KERNEL_WAIT "#e3b23c"
#define HP_OTHER_WAIT "#8c8c8c"

/* @s HTML-escaped (& < > " ', invalid UTF-8 and control characters as '?'),
 * for text and attribute values alike; at most @maxcp code points and an
 * ellipsis after them (SIZE_MAX: all). */
void hp_esc(FILE *f, const char *s, size_t maxcp);
/* @s as a JSON string that can sit inside a <script> element ('<', '>' and
 * '&' as \u escapes, so that no "</script>" can end it), at most @maxcp code
 * points. */
void hp_json_str(FILE *f, const char *s, size_t maxcp);

/* <section id="@id"> with its heading and a paragraph @intro (NULL: none;
 * plain text, escaped). */
void hp_section(FILE *f, const char *id, const char *title, const char *intro);
void hp_section_end(FILE *f);
/* A heading inside a section. */
void hp_h3(FILE *f, const char *title);
/* A paragraph of plain text (escaped), of class @cls (NULL: none). */
void hp_p(FILE *f, const char *cls, const char *text);

/* A table: @cols are the column titles; one starting with '#' is a number
 * column (right-aligned; the '#' is not shown). Cells follow with hp_tr(),
 * hp_td*(); hp_table_end() closes it. @cls: the table's class or NULL. */
void hp_table(FILE *f, const char *cls, const char *const *cols, size_t n);
void hp_table_end(FILE *f);
void hp_tr(FILE *f);
void hp_tr_end(FILE *f);
/* A text cell on one line, shortened to @maxcp code points (the whole text
 * in its tooltip when shortened; SIZE_MAX: whole). */
void hp_td(FILE *f, const char *s, size_t maxcp);
/* The same for a text of several lines' worth (a message): wrapped, where
 * hp_td() keeps one line. */
void hp_td_wrap(FILE *f, const char *s, size_t maxcp);
/* A number cell: printf @fmt of @v, "–" when @v is not finite. */
void hp_td_num(FILE *f, const char *fmt, double v);
/* A count cell. */
void hp_td_count(FILE *f, unsigned long long v);
/* A duration cell ("4.56 ms", fmt_time_us()). */
void hp_td_time(FILE *f, double us);
/* A percentage cell with a bar of @color under the number (0..100). */
void hp_td_pct(FILE *f, double pct, const char *color);

/* One part of a stacked bar. */
struct hp_seg {
	double v;		/* its length in the row's unit (us) */
	const char *color;
	const char *label;	/* the legend's and the tooltip's name */
};

/* One row of a bar chart. */
struct hp_bar_row {
	const char *label;
	const char *note;	/* right of the bar ("12.3 ms"), NULL: the total */
	struct hp_seg seg[8];
	size_t nseg;
	double total;		/* the row's whole (normalised bars fill to it) */
};

/* A bar chart as inline SVG (class tl-chart, for the page's checks): a row
 * per @rows, its label on the left, its parts stacked, each part's share in
 * its tooltip. @normalize: each row fills the width (parts as percent of
 * its total); else the longest row does and the others are to scale. */
void hp_bars(FILE *f, const char *id, const struct hp_bar_row *rows, size_t n, bool normalize);
/* The legend of @segs (their colours and labels). */
void hp_legend(FILE *f, const struct hp_seg *segs, size_t n);

/* An SVG document (a chart of chart-svg.h) as an <img> with a data: URI, so
 * that its stylesheet and ids stay its own. @cls: class (tl-chart...). */
void hp_img_svg(FILE *f, const char *svg, size_t len, const char *alt, const char *cls);

#endif

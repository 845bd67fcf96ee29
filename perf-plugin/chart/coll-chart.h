/* SPDX-License-Identifier: MIT */
/* The chart of `tlreplay collectives --chart`: who waited for whom.
 *   1. a timeline, one lane per rank: each rank's collective kernel, pale
 *      while the rank waits for the last one to arrive, solid once every
 *      rank is in (the transfer), coloured by collective type; the rank
 *      that arrived last is outlined;
 *   2. per rank: the time it spent waiting and how often it was the one the
 *      others waited for (arrived last), as tl_coll_stragglers() counts them;
 *   3. bus bandwidth against message size, one dot per collective.
 * Drawn with the sweep chart's SVG primitives (chart-svg.h); PNG through
 * rsvg-convert. */
#ifndef TLREPLAY_COLL_CHART_H
#define TLREPLAY_COLL_CHART_H

#include <tlreplay/ranks.h>

/*
 * Draw the collectives of @t into @path (.svg, or .png with rsvg-convert),
 * replaced atomically. @subtitle (the inputs) may be NULL.
 * Returns 0, or 1 after printing why with cli_error().
 */
int coll_chart_write(const char *path, const struct tl_coll_table *t, const char *subtitle);
/* The same chart as an SVG document in memory (the HTML report embeds it):
 * *@svg malloc'ed for the caller, *@len its bytes. Returns 0, or 1 after
 * cli_error(). */
int coll_chart_svg(const struct tl_coll_table *t, const char *subtitle, char **svg, size_t *len);

#endif

/* SPDX-License-Identifier: MIT */
/* tl_sheet_compare / tl_sheet_compare_split: pandas' outer merge as
 * compare_perf_reports uses it (keys in sorted order, numbers by value, an
 * empty key matching an empty key, every pairing of a key held by several
 * rows), the _diff and _pct columns, and the three splits. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/compare.h>

#include "tap.h"

static struct tl_sheet *sheet(const char *name, size_t nrows, const struct tl_cell *cells)
{
	static const char *const cols[] = { "name", "M", "time", "count" };
	struct tl_sheet *sh = NULL;
	size_t i;

	if (tl_sheet_new(name, 4, cols, &sh))
		return NULL;
	for (i = 0; i < nrows; i++)
		if (tl_sheet_add_row(sh, cells + 4 * i)) {
			tl_sheet_free(sh);
			return NULL;
		}
	return sh;
}

static const char *text(const struct tl_sheet *sh, size_t row, const char *col, char *buf)
{
	long c = tl_sheet_col_index(sh, col);

	return c < 0 ? "<no column>" : tl_cell_text(tl_sheet_cell(sh, row, (size_t)c), buf, 64);
}

int main(void)
{
	static const char *const keys[] = { "name", "M" };
	static const char *const diff[] = { "time", "count" };
	const struct tl_cell b[] = {
		tl_cell_str("mm"), tl_cell_str("1024"), tl_cell_num(10), tl_cell_int(2),
		tl_cell_str("mm"), tl_cell_str("512"), tl_cell_num(4), tl_cell_int(1),
		tl_cell_str("add"), tl_cell_str(""), tl_cell_num(0), tl_cell_int(1),
		tl_cell_str("cat"), tl_cell_str("9"), tl_cell_num(3), tl_cell_int(1),
		tl_cell_str("cat"), tl_cell_str("9"), tl_cell_num(5), tl_cell_int(1),
	};
	const struct tl_cell v[] = {
		tl_cell_str("mm"), tl_cell_str("1024"), tl_cell_num(15), tl_cell_int(2),
		tl_cell_str("add"), tl_cell_str(""), tl_cell_num(2), tl_cell_int(1),
		tl_cell_str("gelu"), tl_cell_str("64"), tl_cell_num(7), tl_cell_int(1),
		tl_cell_str("cat"), tl_cell_str("9"), tl_cell_num(1), tl_cell_int(1),
		tl_cell_str("cat"), tl_cell_str("9"), tl_cell_num(2), tl_cell_int(1),
	};
	struct tl_compare_spec spec = { keys, 2, diff, 2, NULL, 0, NULL, 0, NULL };
	struct tl_sheet *sb = sheet("x", 5, b), *sv = sheet("x", 5, v), *j = NULL, *part[3];
	char x[64], y[64];
	size_t i;

	plan(14);
	ok(tl_sheet_compare(sb, sv, "a", "a", &spec, "x", &j) == -EINVAL && !j, "equal tags refused");
	ok(tl_sheet_compare(sb, sv, "a", "b", &spec, "x", &j) == 0 && j, "join");
	ok(tl_sheet_ncols(j) == 2 + 4 + 2 + 2 && !strcmp(tl_sheet_col(j, 2), "time__b_diff") &&
	   !strcmp(tl_sheet_col(j, 3), "time__b_pct") && !strcmp(tl_sheet_col(j, 6), "a::time") &&
	   !strcmp(tl_sheet_col(j, 9), "b::count"),
	   "columns: keys, each diff column's _diff and _pct, then a's and b's under their tags");
	/* keys sorted: add, cat (x4: every pairing), gelu, mm 512, mm 1024
	 * (M compares as a number: every value reads as one) */
	ok(tl_sheet_nrows(j) == 8, "8 rows: the two cat rows of each side give 4 (%zu)",
	   tl_sheet_nrows(j));
	ok(!strcmp(text(j, 0, "name", x), "add") && !strcmp(text(j, 0, "M", y), ""),
	   "an empty key matches an empty key (add)");
	ok(!strcmp(text(j, 1, "a::time", x), "3.0") && !strcmp(text(j, 1, "b::time", y), "1.0") &&
	   !strcmp(text(j, 2, "b::time", x), "2.0") && !strcmp(text(j, 3, "a::time", y), "5.0"),
	   "a key on several rows: every pairing, the baseline's row first");
	ok(!strcmp(text(j, 6, "M", x), "512") && !strcmp(text(j, 7, "M", y), "1024"),
	   "a key that reads as numbers sorts by value (512 before 1024)");
	ok(!strcmp(text(j, 7, "time__b_diff", x), "5.0") && !strcmp(text(j, 7, "time__b_pct", y), "50.0"),
	   "diff = variant - baseline, pct of the baseline");
	ok(!strcmp(text(j, 0, "time__b_pct", x), ""), "pct of a zero baseline is empty");
	ok(!strcmp(text(j, 5, "time__b_diff", x), "") && !strcmp(text(j, 5, "a::count", y), ""),
	   "a row one side lacks: empty diff and empty cells of that side");
	ok(tl_sheet_compare_split(j, "x", "a", "b", "time", "time", part) == 0,
	   "split");
	ok(!strcmp(tl_sheet_name(part[0]), "x_intersect_b") && tl_sheet_nrows(part[0]) == 6 &&
	   !strcmp(text(part[0], 0, "name", x), "mm") && !strcmp(text(part[0], 0, "a::time", y), "10.0"),
	   "intersect: 6 rows, by the baseline's time, largest first");
	ok(tl_sheet_nrows(part[1]) == 1 && !strcmp(text(part[1], 0, "M", x), "512") &&
	   tl_sheet_col_index(part[1], "b::time") < 0 && tl_sheet_col_index(part[1], "time__b_diff") < 0,
	   "only_baseline: mm 512, without the variant's columns nor the diffs");
	ok(tl_sheet_nrows(part[2]) == 1 && !strcmp(text(part[2], 0, "name", x), "gelu") &&
	   tl_sheet_col_index(part[2], "a::time") < 0,
	   "only_variant: gelu, without the baseline's columns");
	for (i = 0; i < 3; i++)
		tl_sheet_free(part[i]);
	tl_sheet_free(j);
	tl_sheet_free(sb);
	tl_sheet_free(sv);
	return done_testing();
}

/* SPDX-License-Identifier: MIT */
/* Sheets: cells, Python's float repr, and CSV as pandas writes it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/report.h>

#include "tap.h"

static int repr_is(double v, const char *want)
{
	char buf[64];

	tl_fmt_pyfloat(buf, sizeof(buf), v);
	return ok(!strcmp(buf, want), "repr(%.17g) = %s (got %s)", v, want, buf);
}

int main(void)
{
	static const char *const cols[] = { "name", "param: M", "GFLOPS", "ok", "note" };
	struct tl_sheet *sh = NULL;
	struct tl_cell row[5];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	plan(17);
	repr_is(12.0, "12.0");
	repr_is(0.0001, "0.0001");
	repr_is(1e-05, "1e-05");
	repr_is(1.5e16, "1.5e+16");
	repr_is(1e16, "1e+16");
	repr_is(9999999999999998.0, "9999999999999998.0");
	repr_is(0.1 + 0.2, "0.30000000000000004");
	repr_is(55.0588928, "55.0588928");
	repr_is(-0.0, "-0.0");
	repr_is(NAN, "nan");

	ok(tl_sheet_new("", 1, cols, &sh) == -EINVAL && !sh, "a sheet needs a name");
	ok(tl_sheet_new("GEMM", 5, cols, &sh) == 0, "new sheet");
	row[0] = tl_cell_str("aten::bmm");
	row[1] = tl_cell_int(5185);
	row[2] = tl_cell_num(55.0588928);
	row[3] = tl_cell_bool(0);
	row[4] = tl_cell_str("(331840, 64, 1)");
	ok(tl_sheet_add_row(sh, row) == 0, "add a row");
	row[0] = tl_cell_str("say \"hi\"");
	row[1] = tl_cell_empty();
	row[2] = tl_cell_num(NAN);
	row[3] = tl_cell_bool(1);
	row[4] = tl_cell_str(NULL);
	ok(tl_sheet_add_row(sh, row) == 0, "add a row of empties");
	ok(tl_sheet_nrows(sh) == 2 && tl_sheet_col_index(sh, "GFLOPS") == 2 && tl_sheet_col_index(sh, "x") == -1 &&
		   tl_sheet_cell(sh, 0, 1)->i == 5185 && tl_sheet_cell(sh, 9, 9)->kind == TL_CELL_EMPTY,
	   "accessors");
	f = open_memstream(&text, &len);
	ok(f && tl_sheet_write_csv(sh, f) == 0, "write CSV");
	fclose(f);
	ok(text && !strcmp(text, "name,param: M,GFLOPS,ok,note\n"
				 "aten::bmm,5185,55.0588928,False,\"(331840, 64, 1)\"\n"
				 "\"say \"\"hi\"\"\",,,True,\n"),
	   "CSV: repr numbers, empty NaN, quoted only where pandas quotes");
	free(text);
	tl_sheet_free(sh);
	return done_testing();
}

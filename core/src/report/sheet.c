/* SPDX-License-Identifier: MIT */
/* A sheet: column names and rows of typed cells, written as pandas writes CSV. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

struct tl_sheet {
	char *name;
	size_t ncols;
	char **cols;
	struct tl_cell *cells;	/* nrows * ncols, row-major */
	size_t nrows, cap;
	/* the text of the string cells: one arena, not a malloc per cell (a
	 * diff's 35k-row sheets held 150 MB of small allocations) */
	struct tl_arena strs;
};

int tl_sheet_new(const char *name, size_t ncols, const char *const *cols, struct tl_sheet **out)
{
	struct tl_sheet *sh;
	size_t i;

	*out = NULL;
	/* no columns is pandas' empty frame (a comparison's empty split) */
	if (!name || !*name || (ncols && !cols))
		return -EINVAL;
	sh = calloc(1, sizeof(*sh));
	if (!sh)
		return -ENOMEM;
	sh->ncols = ncols;
	tl_arena_init(&sh->strs, 32 * 1024);
	sh->name = strdup(name);
	sh->cols = calloc(ncols ? ncols : 1, sizeof(*sh->cols));
	if (!sh->name || !sh->cols)
		goto fail;
	for (i = 0; i < ncols; i++) {
		sh->cols[i] = strdup(cols[i] ? cols[i] : "");
		if (!sh->cols[i])
			goto fail;
	}
	*out = sh;
	return 0;
fail:
	tl_sheet_free(sh);
	return -ENOMEM;
}

int tl_sheet_add_row(struct tl_sheet *sh, const struct tl_cell *cells)
{
	struct tl_cell *row;
	size_t i;

	if (sh->nrows == sh->cap) {
		size_t cap = sh->cap ? 2 * sh->cap : 64;
		struct tl_cell *p = realloc(sh->cells, cap * sh->ncols * sizeof(*p));

		if (!p)
			return -ENOMEM;
		sh->cells = p;
		sh->cap = cap;
	}
	row = sh->cells + sh->nrows * sh->ncols;
	for (i = 0; i < sh->ncols; i++) {
		row[i] = cells[i];
		if (row[i].kind == TL_CELL_STR) {
			const char *s = cells[i].s ? cells[i].s : "";

			/* a failed row leaves its copies in the arena until the sheet goes */
			row[i].s = tl_arena_strndup(&sh->strs, s, strlen(s));
			if (!row[i].s)
				return -ENOMEM;
		}
	}
	sh->nrows++;
	return 0;
}

const char *tl_sheet_name(const struct tl_sheet *sh) { return sh->name; }
size_t tl_sheet_ncols(const struct tl_sheet *sh) { return sh->ncols; }
size_t tl_sheet_nrows(const struct tl_sheet *sh) { return sh->nrows; }

const char *tl_sheet_col(const struct tl_sheet *sh, size_t col)
{
	return col < sh->ncols ? sh->cols[col] : NULL;
}

long tl_sheet_col_index(const struct tl_sheet *sh, const char *name)
{
	size_t i;

	for (i = 0; i < sh->ncols; i++)
		if (!strcmp(sh->cols[i], name))
			return (long)i;
	return -1;
}

const struct tl_cell *tl_sheet_cell(const struct tl_sheet *sh, size_t row, size_t col)
{
	static const struct tl_cell empty = { TL_CELL_EMPTY, 0, 0, 0 };

	if (row >= sh->nrows || col >= sh->ncols)
		return &empty;
	return &sh->cells[row * sh->ncols + col];
}

void tl_fmt_pyfloat(char *buf, size_t n, double v)
{
	char tmp[64];
	int prec, ex;

	if (isnan(v)) {
		snprintf(buf, n, "nan");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, n, v < 0 ? "-inf" : "inf");
		return;
	}
	/* shortest digits that read back to the same double */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	/* repr's rule: positional for exponents -4..15, else scientific */
	ex = atoi(strchr(tmp, 'e') + 1);
	if (ex >= -4 && ex < 16) {
		int dec = prec - 1 - ex;

		snprintf(buf, n, "%.*f", dec < 0 ? 0 : dec, v);
		if (!strchr(buf, '.') && strlen(buf) + 2 < n)
			strcat(buf, ".0");
	} else {
		snprintf(buf, n, "%s", tmp);
	}
}

const char *tl_cell_text(const struct tl_cell *c, char *buf, size_t n)
{
	switch (c->kind) {
	case TL_CELL_STR:
		return c->s;
	case TL_CELL_INT:
		snprintf(buf, n, "%lld", c->i);
		return buf;
	case TL_CELL_NUM:
		if (isnan(c->d))
			break;
		tl_fmt_pyfloat(buf, n, c->d);
		return buf;
	case TL_CELL_BOOL:
		snprintf(buf, n, "%s", c->i ? "True" : "False");
		return buf;
	case TL_CELL_EMPTY:
		break;
	}
	if (n)
		buf[0] = '\0';
	return buf;
}

/* One CSV field, quoted the way Python's csv module's QUOTE_MINIMAL does
 * (with @sep as the delimiter). */
static void put_field(FILE *f, const char *s, const char *sep)
{
	if (!strpbrk(s, "\"\r\n") && !(*sep && strstr(s, sep))) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	/* runs up to each quote in one write: quoted fields are long (kernel names, shapes) */
	for (const char *q; (q = strchr(s, '"')); s = q + 1) {
		fwrite(s, 1, (size_t)(q + 1 - s), f);
		fputc('"', f);
	}
	fputs(s, f);
	fputc('"', f);
}

int tl_sheet_write_csv(const struct tl_sheet *sh, FILE *f)
{
	return tl_sheet_write_sep(sh, f, ",", 0);
}

int tl_sheet_write_sep(const struct tl_sheet *sh, FILE *f, const char *sep, size_t max_rows)
{
	size_t r, c, nrows = max_rows && max_rows < sh->nrows ? max_rows : sh->nrows;
	char buf[64];

	if (!sh->ncols)
		fputc('\n', f);	/* as pandas writes a frame without columns */
	for (c = 0; c < sh->ncols; c++) {
		put_field(f, sh->cols[c], sep);
		fputs(c + 1 < sh->ncols ? sep : "\n", f);
	}
	for (r = 0; r < nrows; r++)
		for (c = 0; c < sh->ncols; c++) {
			put_field(f, tl_cell_text(&sh->cells[r * sh->ncols + c], buf, sizeof(buf)), sep);
			fputs(c + 1 < sh->ncols ? sep : "\n", f);
		}
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int rpt_sheet_drop_col(struct tl_sheet *sh, const char *col)
{
	long k = tl_sheet_col_index(sh, col);
	size_t r, c, j = 0;

	if (k < 0)
		return 0;
	/* compact in place: the rows shrink by one cell each */
	for (r = 0; r < sh->nrows; r++)
		for (c = 0; c < sh->ncols; c++) {
			struct tl_cell *cell = &sh->cells[r * sh->ncols + c];

			if (c == (size_t)k)
				continue;	/* its text stays in the arena */
			sh->cells[j++] = *cell;
		}
	free(sh->cols[k]);
	memmove(sh->cols + k, sh->cols + k + 1, (sh->ncols - (size_t)k - 1) * sizeof(*sh->cols));
	sh->ncols--;
	/* cap counted rows of the old width: still enough room */
	sh->cap = sh->ncols ? sh->cap * (sh->ncols + 1) / sh->ncols : 0;
	return 0;
}

int rpt_sheet_done(struct tl_sheet *sh, int err, struct tl_sheet **out)
{
	if (err) {
		tl_sheet_free(sh);
		return err;
	}
	*out = sh;
	return 0;
}

void tl_sheet_free(struct tl_sheet *sh)
{
	size_t i;

	if (!sh)
		return;
	tl_arena_free(&sh->strs);
	for (i = 0; sh->cols && i < sh->ncols; i++)
		free(sh->cols[i]);
	free(sh->cols);
	free(sh->cells);
	free(sh->name);
	free(sh);
}

/* SPDX-License-Identifier: MIT */
/* A report's sheets as one xlsx workbook (libxlsxwriter), the way TraceLens
 * writes its perf report with pandas' to_excel: a worksheet per sheet, the
 * header row bold, numbers as numbers, NaN as a blank cell. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xlsxwriter.h>
#include <tlreplay/report_sheets.h>

#include <tlreplay/output.h>

#include "report/report_internal.h"

#define XL_NAME_MAX 31		/* Excel's limit on a worksheet name, in characters */
#define XL_STR_MAX 32767	/* and on the text of one cell */
#define XL_ROWS 1048576

/* Bytes of the first @max UTF-8 characters of @s. */
static size_t utf8_prefix(const char *s, size_t max)
{
	size_t i = 0, n = 0;

	while (s[i] && n < max) {
		i++;
		while (((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		n++;
	}
	return i;
}

/* The worksheet name of sheet @p k: its name with the characters Excel
 * refuses replaced, cut to 31 characters. pandas hands openpyxl the whole
 * name, which makes a workbook Excel will not open; a cut name that repeats
 * an earlier one (Excel compares them without case) ends in "~N". */
static void ws_name(struct tl_sheet *const *sheets, size_t k, char names[][XL_NAME_MAX * 4 + 1])
{
	char *p = names[k];
	size_t len, j;
	unsigned dup = 1;

	len = utf8_prefix(tl_sheet_name(sheets[k]), XL_NAME_MAX);
	memcpy(p, tl_sheet_name(sheets[k]), len);
	p[len] = '\0';
	for (j = 0; j < len; j++)
		if (strchr("[]:*?/\\", p[j]))
			p[j] = '_';
	if (p[0] == '\'')
		p[0] = '_';
	if (len && p[len - 1] == '\'')
		p[len - 1] = '_';
again:
	for (j = 0; j < k; j++) {
		char sfx[16];
		size_t keep;

		if (strcasecmp(names[j], p))
			continue;
		snprintf(sfx, sizeof(sfx), "~%u", ++dup);
		keep = utf8_prefix(tl_sheet_name(sheets[k]), XL_NAME_MAX - strlen(sfx));
		if (keep > len)
			keep = len;
		strcpy(p + keep, sfx);
		len = strlen(p);
		goto again;
	}
}

/* The process's umask, read without changing it (umask() would, for every
 * thread); 022 where /proc does not say. */
/* Write text, cut to Excel's limit on a cell (libxlsxwriter refuses more). */
static lxw_error put_text(lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s, lxw_format *f)
{
	size_t n = utf8_prefix(s, XL_STR_MAX);
	char *cut;
	lxw_error e;

	if (!s[n])
		return worksheet_write_string(ws, r, c, s, f);
	cut = strndup(s, n);
	if (!cut)
		return LXW_ERROR_MEMORY_MALLOC_FAILED;
	e = worksheet_write_string(ws, r, c, cut, f);
	free(cut);
	return e;
}

static lxw_error put_cell(lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const struct tl_cell *x)
{
	switch (x->kind) {
	case TL_CELL_STR:
		return put_text(ws, r, c, x->s, NULL);
	case TL_CELL_INT:
		return worksheet_write_number(ws, r, c, (double)x->i, NULL);
	case TL_CELL_NUM:
		/* pandas: NaN is an empty cell, infinity the text "inf" */
		if (isnan(x->d))
			return LXW_NO_ERROR;
		if (isinf(x->d))
			return worksheet_write_string(ws, r, c, x->d < 0 ? "-inf" : "inf", NULL);
		return worksheet_write_number(ws, r, c, x->d, NULL);
	case TL_CELL_BOOL:
		return worksheet_write_boolean(ws, r, c, (int)x->i, NULL);
	case TL_CELL_EMPTY:
		break;
	}
	return LXW_NO_ERROR;
}

static lxw_error put_sheet(lxw_worksheet *ws, const struct tl_sheet *sh, lxw_format *bold)
{
	size_t ncols = tl_sheet_ncols(sh), nrows = tl_sheet_nrows(sh), r, c;
	lxw_error e = LXW_NO_ERROR;

	for (c = 0; c < ncols && !e; c++)
		e = put_text(ws, 0, (lxw_col_t)c, tl_sheet_col(sh, c), bold);
	/* rows past Excel's last are left out, as Excel would not show them */
	if (nrows + 1 > XL_ROWS)
		tl_log(TL_LOG_WARN, "xlsx: sheet %s: %zu rows, Excel keeps the first %d", tl_sheet_name(sh),
		       nrows, XL_ROWS - 1);
	for (r = 0; r < nrows && r + 1 < XL_ROWS && !e; r++)
		for (c = 0; c < ncols && !e; c++)
			e = put_cell(ws, (lxw_row_t)(r + 1), (lxw_col_t)c, tl_sheet_cell(sh, r, c));
	return e;
}

int tl_sheets_write_xlsx(struct tl_sheet *const *sheets, size_t n, const char *path)
{
	char (*names)[XL_NAME_MAX * 4 + 1] = NULL;
	struct tl_output o = { .fd = -1, .slot = -1 };
	lxw_workbook *wb = NULL;
	lxw_format *bold;
	lxw_error e = LXW_NO_ERROR;
	char at[64];
	size_t i;
	int err = 0;

	if (!sheets || !n || !path || !*path)
		return tl_err(-EINVAL, "xlsx: no sheets or no path");
	/* an output that gets its name when whole (tlreplay/output.h);
	 * libxlsxwriter opens it again by its /proc name */
	err = tl_output_open(&o, path);
	if (err)
		goto out;
	snprintf(at, sizeof(at), "/proc/self/fd/%d", o.fd);
	names = calloc(n, sizeof(*names));
	if (!names) {
		err = tl_err(-ENOMEM, "xlsx: out of memory");
		goto out;
	}
	wb = workbook_new(at);
	if (!wb) {
		err = tl_err(-EIO, "xlsx: libxlsxwriter could not start a workbook for %s", path);
		goto out;
	}
	bold = workbook_add_format(wb);
	format_set_bold(bold);
	for (i = 0; i < n && !e; i++) {
		lxw_worksheet *ws;

		ws_name(sheets, i, names);
		ws = workbook_add_worksheet(wb, names[i]);
		if (!ws) {
			err = tl_err(-EINVAL, "xlsx: worksheet name \"%s\" refused", names[i]);
			goto out;
		}
		e = put_sheet(ws, sheets[i], bold);
	}
	if (e) {
		err = tl_err(e == LXW_ERROR_MEMORY_MALLOC_FAILED ? -ENOMEM : -EIO, "xlsx: sheet %s: %s",
			     tl_sheet_name(sheets[i - 1]), lxw_strerror(e));
		goto out;
	}
	e = workbook_close(wb);
	wb = NULL;
	if (e) {
		err = tl_err(-EIO, "xlsx: writing %s: %s", path, lxw_strerror(e));
		goto out;
	}
	err = tl_output_commit(&o);
out:
	if (wb) {
		/* closing is the only way to free a workbook; what it writes goes */
		workbook_close(wb);
	}
	tl_output_abort(&o);
	free(names);
	return err;
}

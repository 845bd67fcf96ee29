/* SPDX-License-Identifier: MIT */
/* JSON values as Python's repr() shows them, lists kept or turned into tuples
 * as TraceLens's list_to_tuple() does: the text pandas writes for a
 * tuple-valued cell (Input Dims, Concrete Inputs), the key TraceLens groups
 * such cells by, and Python's repr of a str. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/report_internal.h"

static int put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (tl_grow((void **)buf, cap, *len + n + 1, 1))
		return -ENOMEM;
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* Python's str repr: single quotes unless the text has ' and no ". */
static int put_str(char **buf, size_t *len, size_t *cap, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	char esc[8];
	int err = put(buf, len, cap, &q, 1);

	for (; !err && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == (unsigned char)q || c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (c == '\r')
			snprintf(esc, sizeof(esc), "\\r");
		else if (c == '\t')
			snprintf(esc, sizeof(esc), "\\t");
		else if (c < 0x20 || c == 0x7f)
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		else {
			esc[0] = (char)c;
			esc[1] = '\0';
		}
		err = put(buf, len, cap, esc, strlen(esc));
	}
	return err ? err : put(buf, len, cap, &q, 1);
}

static int put_num(char **buf, size_t *len, size_t *cap, double d)
{
	char tmp[64];

	/* JSON integers (shapes, strides) come back as Python ints */
	if (isfinite(d) && d == floor(d) && fabs(d) < 9.007199254740992e15)
		snprintf(tmp, sizeof(tmp), "%lld", (long long)d);
	else
		tl_fmt_pyfloat(tmp, sizeof(tmp), d);
	return put(buf, len, cap, tmp, strlen(tmp));
}

static int repr(const struct cJSON *v, bool tuples, char **buf, size_t *len, size_t *cap)
{
	const cJSON *e;
	int n = 0, err = 0;

	if (!v || cJSON_IsNull(v))
		return put(buf, len, cap, "None", 4);
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? put(buf, len, cap, "True", 4) : put(buf, len, cap, "False", 5);
	if (cJSON_IsNumber(v))
		return put_num(buf, len, cap, v->valuedouble);
	if (cJSON_IsString(v))
		return put_str(buf, len, cap, v->valuestring);
	if (cJSON_IsArray(v)) {
		err = put(buf, len, cap, tuples ? "(" : "[", 1);
		cJSON_ArrayForEach(e, v) {
			if (!err && n++)
				err = put(buf, len, cap, ", ", 2);
			if (!err)
				err = repr(e, tuples, buf, len, cap);
		}
		/* a one-element tuple keeps its comma */
		if (!err && tuples && n == 1)
			err = put(buf, len, cap, ",", 1);
		return err ? err : put(buf, len, cap, tuples ? ")" : "]", 1);
	}
	/* an object: a dict with string keys */
	err = put(buf, len, cap, "{", 1);
	cJSON_ArrayForEach(e, v) {
		if (!err && n++)
			err = put(buf, len, cap, ", ", 2);
		if (!err)
			err = put_str(buf, len, cap, e->string ? e->string : "");
		if (!err)
			err = put(buf, len, cap, ": ", 2);
		if (!err)
			err = repr(e, tuples, buf, len, cap);
	}
	return err ? err : put(buf, len, cap, "}", 1);
}

int tl_pyrepr_tuple(const struct cJSON *v, char **buf, size_t *len, size_t *cap)
{
	return repr(v, true, buf, len, cap);
}

char *rpt_pyrepr(const struct cJSON *v, bool tuples)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (put(&buf, &len, &cap, "", 0) || (v && repr(v, tuples, &buf, &len, &cap))) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *rpt_pyrepr_json(const char *json)
{
	cJSON *v = *json ? cJSON_Parse(json) : NULL;
	char *buf = rpt_pyrepr(v, true);

	cJSON_Delete(v);
	return buf;
}

void rpt_put_pystr(FILE *f, const char *s)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!put_str(&buf, &len, &cap, s))
		fputs(buf, f);
	free(buf);
}

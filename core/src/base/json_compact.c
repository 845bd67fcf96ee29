/* SPDX-License-Identifier: MIT */
/* A parsed JSON value as cJSON_PrintUnformatted() writes it, byte for byte,
 * appended to a growing buffer: the grouping keys of the op sheets are this
 * text, and cJSON's own printer (a malloc per value, sprintf then sscanf
 * per number) was a tenth of a report's time. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/base_internal.h"

/* cJSON's print_number: an int when the double is one (valueint is the
 * value clamped to int), else %1.15g, or %1.17g where that does not read
 * back as the same double. */
static int put_number(char **buf, size_t *len, size_t *cap, const cJSON *v)
{
	char tmp[32], *p = tmp + sizeof(tmp);
	double d = v->valuedouble, back;

	if (isnan(d) || isinf(d))
		return tl_text_put(buf, len, cap, "null", 4);
	/* Debian's cJSON writes a negative zero as -0 (checked by the unit test) */
	if (d == 0 && signbit(d))
		return tl_text_put(buf, len, cap, "-0", 2);
	if (d == (double)v->valueint) {
		long long x = v->valueint;
		unsigned long long u = x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;

		do
			*--p = (char)('0' + u % 10);
		while (u /= 10);
		if (x < 0)
			*--p = '-';
		return tl_text_put(buf, len, cap, p, (size_t)(tmp + sizeof(tmp) - p));
	}
	snprintf(tmp, sizeof(tmp), "%1.15g", d);
	if (sscanf(tmp, "%lg", &back) != 1 ||
	    fabs(back - d) > fmax(fabs(back), fabs(d)) * DBL_EPSILON)
		snprintf(tmp, sizeof(tmp), "%1.17g", d);
	return tl_text_put(buf, len, cap, tmp, strlen(tmp));
}

/* cJSON's print_string_ptr: ", \ and the C escapes by name, other control
 * characters as \u00XX, everything else (UTF-8 included) as it is. */
static int put_string(char **buf, size_t *len, size_t *cap, const char *s)
{
	int err = tl_text_put(buf, len, cap, "\"", 1);

	while (!err && s && *s) {
		size_t run = 0;
		unsigned char c;
		char esc[8];

		while ((c = (unsigned char)s[run]) && c >= 0x20 && c != '"' && c != '\\')
			run++;
		if (run) {
			err = tl_text_put(buf, len, cap, s, run);
			s += run;
			continue;
		}
		c = (unsigned char)*s++;
		switch (c) {
		case '"': case '\\':
			snprintf(esc, sizeof(esc), "\\%c", c);
			break;
		case '\b':
			snprintf(esc, sizeof(esc), "\\b");
			break;
		case '\f':
			snprintf(esc, sizeof(esc), "\\f");
			break;
		case '\n':
			snprintf(esc, sizeof(esc), "\\n");
			break;
		case '\r':
			snprintf(esc, sizeof(esc), "\\r");
			break;
		case '\t':
			snprintf(esc, sizeof(esc), "\\t");
			break;
		default:
			snprintf(esc, sizeof(esc), "\\u%04x", c);
		}
		err = tl_text_put(buf, len, cap, esc, strlen(esc));
	}
	return err ? err : tl_text_put(buf, len, cap, "\"", 1);
}

int tl_json_compact(const cJSON *v, char **buf, size_t *len, size_t *cap)
{
	const cJSON *e;
	int err = 0, n = 0;

	if (!v)
		return tl_text_put(buf, len, cap, "", 0);
	if (cJSON_IsRaw(v))
		return tl_text_put(buf, len, cap, v->valuestring ? v->valuestring : "",
			   v->valuestring ? strlen(v->valuestring) : 0);
	if (cJSON_IsNull(v))
		return tl_text_put(buf, len, cap, "null", 4);
	if (cJSON_IsFalse(v))
		return tl_text_put(buf, len, cap, "false", 5);
	if (cJSON_IsTrue(v))
		return tl_text_put(buf, len, cap, "true", 4);
	if (cJSON_IsNumber(v))
		return put_number(buf, len, cap, v);
	if (cJSON_IsString(v))
		return put_string(buf, len, cap, v->valuestring);
	if (cJSON_IsArray(v)) {
		err = tl_text_put(buf, len, cap, "[", 1);
		cJSON_ArrayForEach(e, v) {
			if (!err && n++)
				err = tl_text_put(buf, len, cap, ",", 1);
			if (!err)
				err = tl_json_compact(e, buf, len, cap);
		}
		return err ? err : tl_text_put(buf, len, cap, "]", 1);
	}
	err = tl_text_put(buf, len, cap, "{", 1);
	cJSON_ArrayForEach(e, v) {
		if (!err && n++)
			err = tl_text_put(buf, len, cap, ",", 1);
		if (!err)
			err = put_string(buf, len, cap, e->string);
		if (!err)
			err = tl_text_put(buf, len, cap, ":", 1);
		if (!err)
			err = tl_json_compact(e, buf, len, cap);
	}
	return err ? err : tl_text_put(buf, len, cap, "}", 1);
}

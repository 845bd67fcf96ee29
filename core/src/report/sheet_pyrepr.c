/* SPDX-License-Identifier: MIT */
/* Recorded args (JSON) in the form TraceLens's pandas writes them: Python's
 * repr of the value with every list made a tuple (its list_to_tuple()). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/report_internal.h"

void rpt_put_pystr(FILE *f, const char *s)
{
	/* repr picks double quotes only for text with ' and no " */
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';

	fputc(q, f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c == (unsigned char)q)
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc(q, f);
}

static void put_value(FILE *f, const cJSON *v, bool tuples)
{
	const cJSON *x;
	int n = 0;

	if (cJSON_IsArray(v) && !tuples) {
		fputc('[', f);
		cJSON_ArrayForEach(x, v) {
			if (n++)
				fputs(", ", f);
			put_value(f, x, tuples);
		}
		fputc(']', f);
	} else if (cJSON_IsArray(v)) {
		fputc('(', f);
		cJSON_ArrayForEach(x, v) {
			if (n++)
				fputs(", ", f);
			put_value(f, x, tuples);
		}
		fputs(n == 1 ? ",)" : ")", f);
	} else if (cJSON_IsString(v)) {
		rpt_put_pystr(f, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		char b[64];

		/* JSON integers come back as Python ints */
		if (v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9007199254740992.0)
			fprintf(f, "%.0f", v->valuedouble);
		else {
			tl_fmt_pyfloat(b, sizeof(b), v->valuedouble);
			fputs(b, f);
		}
	} else if (cJSON_IsBool(v)) {
		fputs(cJSON_IsTrue(v) ? "True" : "False", f);
	} else if (cJSON_IsNull(v)) {
		fputs("None", f);
	}
}

char *rpt_pyrepr(const cJSON *v, bool tuples)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f) {
		if (v)
			put_value(f, v, tuples);
		fclose(f);
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

/* SPDX-License-Identifier: MIT */
/* JSON values as Python's repr() shows them, lists kept or turned into tuples
 * as TraceLens's list_to_tuple() does: the text pandas writes for a
 * tuple-valued cell (Input Dims, Concrete Inputs), the key TraceLens groups
 * such cells by, and Python's repr of a str. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/report_internal.h"

/* Python's str repr: single quotes unless the text has ' and no ". Runs of
 * plain characters are copied at once: shape and type names are most of
 * what a report writes this way. */
static int put_str(char **buf, size_t *len, size_t *cap, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	char esc[8];
	int err = tl_text_put(buf, len, cap, &q, 1);

	while (!err && *s) {
		size_t run = 0;
		unsigned char c;

		while ((c = (unsigned char)s[run]) && c >= 0x20 && c != 0x7f && c != '\\' &&
		       c != (unsigned char)q)
			run++;
		if (run) {
			err = tl_text_put(buf, len, cap, s, run);
			s += run;
			continue;
		}
		c = (unsigned char)*s++;
		if (c == (unsigned char)q || c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (c == '\r')
			snprintf(esc, sizeof(esc), "\\r");
		else if (c == '\t')
			snprintf(esc, sizeof(esc), "\\t");
		else
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		err = tl_text_put(buf, len, cap, esc, strlen(esc));
	}
	return err ? err : tl_text_put(buf, len, cap, &q, 1);
}

static int put_num(char **buf, size_t *len, size_t *cap, double d)
{
	char tmp[64], *p = tmp + sizeof(tmp);

	/* JSON integers (shapes, strides) come back as Python ints; written
	 * by hand, as a report writes millions of them */
	if (isfinite(d) && d == floor(d) && fabs(d) < 9.007199254740992e15) {
		long long v = (long long)d;
		unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

		do
			*--p = (char)('0' + u % 10);
		while (u /= 10);
		if (v < 0)
			*--p = '-';
		return tl_text_put(buf, len, cap, p, (size_t)(tmp + sizeof(tmp) - p));
	}
	tl_fmt_pyfloat(tmp, sizeof(tmp), d);
	return tl_text_put(buf, len, cap, tmp, strlen(tmp));
}

static int repr(const struct cJSON *v, bool tuples, char **buf, size_t *len, size_t *cap)
{
	const cJSON *e;
	int n = 0, err = 0;

	if (!v || cJSON_IsNull(v))
		return tl_text_put(buf, len, cap, "None", 4);
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? tl_text_put(buf, len, cap, "True", 4) : tl_text_put(buf, len, cap, "False", 5);
	if (cJSON_IsNumber(v))
		return put_num(buf, len, cap, v->valuedouble);
	if (cJSON_IsString(v))
		return put_str(buf, len, cap, v->valuestring);
	if (cJSON_IsArray(v)) {
		err = tl_text_put(buf, len, cap, tuples ? "(" : "[", 1);
		cJSON_ArrayForEach(e, v) {
			if (!err && n++)
				err = tl_text_put(buf, len, cap, ", ", 2);
			if (!err)
				err = repr(e, tuples, buf, len, cap);
		}
		/* a one-element tuple keeps its comma */
		if (!err && tuples && n == 1)
			err = tl_text_put(buf, len, cap, ",", 1);
		return err ? err : tl_text_put(buf, len, cap, tuples ? ")" : "]", 1);
	}
	/* an object: a dict with string keys */
	err = tl_text_put(buf, len, cap, "{", 1);
	cJSON_ArrayForEach(e, v) {
		if (!err && n++)
			err = tl_text_put(buf, len, cap, ", ", 2);
		if (!err)
			err = put_str(buf, len, cap, e->string ? e->string : "");
		if (!err)
			err = tl_text_put(buf, len, cap, ": ", 2);
		if (!err)
			err = repr(e, tuples, buf, len, cap);
	}
	return err ? err : tl_text_put(buf, len, cap, "}", 1);
}

int tl_pyrepr_tuple(const struct cJSON *v, char **buf, size_t *len, size_t *cap)
{
	return repr(v, true, buf, len, cap);
}

/* Written into a per-thread scratch buffer, then copied out at its size:
 * one allocation per repr where growing the result took several (a report
 * writes one for each recorded field of every op). The scratch is as long
 * as the longest repr and freed when its thread ends (a pthread key's
 * destructor: the report's worker threads are short-lived). */
struct scratch {
	char *buf;
	size_t cap;
};

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static bool scratch_ok;

static void scratch_free(void *p)
{
	struct scratch *s = p;

	free(s->buf);
	free(s);
}

static void scratch_init(void)
{
	scratch_ok = !pthread_key_create(&scratch_key, scratch_free);
}

static struct scratch *scratch_get(void)
{
	struct scratch *s;

	pthread_once(&scratch_once, scratch_init);
	if (!scratch_ok)
		return NULL;
	s = pthread_getspecific(scratch_key);
	if (!s && (s = calloc(1, sizeof(*s))) && pthread_setspecific(scratch_key, s)) {
		free(s);
		s = NULL;
	}
	return s;
}

char *rpt_pyrepr(const struct cJSON *v, bool tuples)
{
	struct scratch *s = scratch_get();
	char *local = NULL, **buf = s ? &s->buf : &local;
	size_t len = 0, lcap = 0, *cap = s ? &s->cap : &lcap;
	char *out = NULL;

	if (!tl_text_put(buf, &len, cap, "", 0) && !(v && repr(v, tuples, buf, &len, cap))) {
		out = malloc(len + 1);
		if (out)
			memcpy(out, *buf, len + 1);
	}
	free(local);
	return out;
}

char *rpt_pyrepr_json(const char *json)
{
	cJSON *v = *json ? cJSON_Parse(json) : NULL;
	char *buf = rpt_pyrepr(v, true);

	cJSON_Delete(v);
	return buf;
}

int rpt_pystr_append(char **buf, size_t *len, size_t *cap, const char *s)
{
	return put_str(buf, len, cap, s);
}

int rpt_str_append(char **buf, size_t *len, size_t *cap, const char *s)
{
	return tl_text_put(buf, len, cap, s, strlen(s));
}

void rpt_put_pystr(FILE *f, const char *s)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!put_str(&buf, &len, &cap, s))
		fputs(buf, f);
	free(buf);
}

/* SPDX-License-Identifier: MIT */
/* Skipping values, parsing numbers and decoding strings for the JSON scanner
 * (declared in trace_internal.h). */
#include <locale.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_internal.h"

static const char *lit(const char *p, const char *end, const char *word, size_t n,
		       struct js_err *e)
{
	if ((size_t)(end - p) < n || memcmp(p, word, n)) {
		e->at = p;
		e->what = (size_t)(end - p) < n ? "truncated JSON" : "invalid literal";
		return NULL;
	}
	return p + n;
}

const char *js_skip_value(const char *p, const char *end, struct js_err *e)
{
	char stack[JS_MAX_DEPTH];
	int depth = 0;
	const char *k;
	size_t klen;
	bool esc;
	double d;
	int64_t iv;
	bool isint;

value:
	p = js_ws(p, end);
	if (p >= end)
		goto eof;
	switch (*p) {
	case '{':
		p = js_ws(p + 1, end);
		if (p < end && *p == '}') {
			p++;
			goto after;
		}
		if (depth >= JS_MAX_DEPTH)
			goto too_deep;
		stack[depth++] = '}';
		goto key;
	case '[':
		p = js_ws(p + 1, end);
		if (p < end && *p == ']') {
			p++;
			goto after;
		}
		if (depth >= JS_MAX_DEPTH)
			goto too_deep;
		stack[depth++] = ']';
		goto value;
	case '"':
		p = js_string_end(p + 1, end, &esc, e);
		if (!p)
			return NULL;
		goto after;
	case 't':
		p = lit(p, end, "true", 4, e);
		break;
	case 'f':
		p = lit(p, end, "false", 5, e);
		break;
	case 'n':
		p = lit(p, end, "null", 4, e);
		break;
	default:
		p = js_number(p, end, &d, &iv, &isint, e);
		break;
	}
	if (!p)
		return NULL;
	goto after;

key:
	p = js_key(js_ws(p, end), end, &k, &klen, &esc, e);
	if (!p)
		return NULL;
	goto value;

after:
	if (depth == 0)
		return p;
	p = js_ws(p, end);
	if (p >= end)
		goto eof;
	if (*p == ',') {
		p++;
		if (stack[depth - 1] == '}')
			goto key;
		goto value;
	}
	if (*p == stack[depth - 1]) {
		p++;
		depth--;
		goto after;
	}
	e->at = p;
	e->what = stack[depth - 1] == '}' ? "expected ',' or '}'" : "expected ',' or ']'";
	return NULL;

eof:
	e->at = end;
	e->what = "truncated JSON";
	return NULL;
too_deep:
	e->at = p;
	e->what = "JSON nested too deeply";
	return NULL;
}

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static locale_t c_loc;
static pthread_once_t c_loc_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
	c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* strtod in the C locale whatever the program's locale (loaders run in two threads) */
static locale_t c_locale(void)
{
	pthread_once(&c_loc_once, c_locale_init);
	return c_loc;
}

const char *js_number(const char *p, const char *end, double *d, int64_t *iv, bool *is_int,
		      struct js_err *e)
{
	const char *start = p;
	bool neg = false, frac = false, expo = false;
	uint64_t mant = 0;
	int ndig = 0;		/* significant digits accumulated in mant */
	int drop = 0;		/* integer digits not accumulated (overflow) */
	int fdig = 0;		/* fractional digits accumulated */
	int exp10 = 0;
	bool exact = true;

	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	if (p >= end || *p < '0' || *p > '9')
		goto bad;
	if (*p == '0') {
		p++;
		if (p < end && *p >= '0' && *p <= '9')
			goto bad;	/* leading zero */
	} else {
		while (p < end && *p >= '0' && *p <= '9') {
			if (ndig < 19) {
				mant = mant * 10 + (uint64_t)(*p - '0');
				if (mant)
					ndig++;
			} else {
				drop++;
				exact = false;
			}
			p++;
		}
	}
	if (p < end && *p == '.') {
		frac = true;
		p++;
		if (p >= end || *p < '0' || *p > '9')
			goto bad;
		while (p < end && *p >= '0' && *p <= '9') {
			if (ndig < 19) {
				mant = mant * 10 + (uint64_t)(*p - '0');
				if (mant)
					ndig++;
				fdig++;
			} else if (*p != '0') {
				exact = false;
			}
			p++;
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		bool eneg = false;
		int ev = 0;

		expo = true;
		p++;
		if (p < end && (*p == '+' || *p == '-')) {
			eneg = *p == '-';
			p++;
		}
		if (p >= end || *p < '0' || *p > '9')
			goto bad;
		while (p < end && *p >= '0' && *p <= '9') {
			if (ev < 100000)
				ev = ev * 10 + (*p - '0');
			p++;
		}
		exp10 = eneg ? -ev : ev;
	}

	*is_int = false;
	/* up to 19 digits fit in mant exactly: ids stay exact as in Python */
	if (!frac && !expo && exact && ndig <= 19 &&
	    (neg ? mant <= (uint64_t)INT64_MAX + 1 : mant <= (uint64_t)INT64_MAX)) {
		*is_int = true;
		*iv = neg ? (int64_t)(0 - mant) : (int64_t)mant;
	}
	{
		int e10 = exp10 + drop - fdig;

		/* Clinger's fast path: both operands exact, one rounding. */
		if (exact && mant <= (1ULL << 53) && e10 >= -22 && e10 <= 22) {
			double v = (double)mant;

			v = e10 < 0 ? v / pow10_exact[-e10] : v * pow10_exact[e10];
			*d = neg ? -v : v;
			return p;
		}
#if defined(__SIZEOF_INT128__)
		/* Timestamps with 17-19 significant digits (µs with ns decimals)
		 * overflow Clinger's 2^53 limit; they are q + r/10^k with an integer
		 * part q below 2^53, so round the fraction with integer arithmetic. */
		if (exact && e10 < 0 && e10 >= -19) {
			uint64_t p10 = 1, q, r;
			int i;

			for (i = 0; i < -e10; i++)
				p10 *= 10;
			q = mant / p10;
			r = mant % p10;
			if (q >= 1 && q < (1ULL << 53)) {
				int b = 64 - __builtin_clzll(q), s = 53 - b;
				unsigned __int128 scaled = (unsigned __int128)r << s;
				uint64_t n = (uint64_t)(scaled / p10), rem = (uint64_t)(scaled % p10);
				uint64_t m = (q << s) + n;

				if (rem > p10 - rem || (rem == p10 - rem && (m & 1)))
					m++;
				*d = ldexp((double)m, -s);
				if (neg)
					*d = -*d;
				return p;
			}
		}
#endif
	}
	{
		char buf[128];
		size_t n = (size_t)(p - start);
		char *tmp = n < sizeof(buf) ? buf : malloc(n + 1);

		if (!tmp) {
			e->at = start;
			e->what = "out of memory";
			return NULL;
		}
		memcpy(tmp, start, n);
		tmp[n] = 0;
		*d = strtod_l(tmp, NULL, c_locale());
		if (tmp != buf)
			free(tmp);
	}
	return p;
bad:
	e->at = p >= end ? end : start;
	e->what = p >= end ? "truncated JSON"
		: (*start == '-' || (*start >= '0' && *start <= '9')) ? "invalid number"
							       : "expected a JSON value";
	return NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static long hex4(const char *s)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		int h = hexval(s[i]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

long js_unescape(const char *src, size_t len, char *dst)
{
	const char *s = src, *end = src + len;
	char *d = dst;

	while (s < end) {
		const char *bs = memchr(s, '\\', (size_t)(end - s));
		size_t run = bs ? (size_t)(bs - s) : (size_t)(end - s);
		long cp;

		memmove(d, s, run);
		d += run;
		s += run;
		if (s >= end)
			break;
		if (end - s < 2)
			return -1;
		switch (s[1]) {
		case '"': *d++ = '"'; s += 2; continue;
		case '\\': *d++ = '\\'; s += 2; continue;
		case '/': *d++ = '/'; s += 2; continue;
		case 'b': *d++ = '\b'; s += 2; continue;
		case 'f': *d++ = '\f'; s += 2; continue;
		case 'n': *d++ = '\n'; s += 2; continue;
		case 'r': *d++ = '\r'; s += 2; continue;
		case 't': *d++ = '\t'; s += 2; continue;
		case 'u': break;
		default: return -1;
		}
		if (end - s < 6 || (cp = hex4(s + 2)) < 0)
			return -1;
		s += 6;
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			long lo;

			/* A lone high surrogate is kept as U+FFFD, as cJSON rejects and
			 * Python keeps it; both are rare enough not to matter. */
			if (end - s >= 6 && s[0] == '\\' && s[1] == 'u' &&
			    (lo = hex4(s + 2)) >= 0xDC00 && lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				s += 6;
			} else {
				cp = 0xFFFD;
			}
		} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
			cp = 0xFFFD;
		}
		if (cp < 0x80) {
			*d++ = (char)cp;
		} else if (cp < 0x800) {
			*d++ = (char)(0xC0 | (cp >> 6));
			*d++ = (char)(0x80 | (cp & 0x3F));
		} else if (cp < 0x10000) {
			*d++ = (char)(0xE0 | (cp >> 12));
			*d++ = (char)(0x80 | ((cp >> 6) & 0x3F));
			*d++ = (char)(0x80 | (cp & 0x3F));
		} else {
			*d++ = (char)(0xF0 | (cp >> 18));
			*d++ = (char)(0x80 | ((cp >> 12) & 0x3F));
			*d++ = (char)(0x80 | ((cp >> 6) & 0x3F));
			*d++ = (char)(0x80 | (cp & 0x3F));
		}
	}
	return (long)(d - dst);
}

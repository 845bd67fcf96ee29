/* SPDX-License-Identifier: MIT */
/* The scanner under the loader: numbers (bit-exact against strtod), value
 * skipping (accepts JSON, rejects non-JSON), string decoding. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "trace/trace_internal.h"
#include "tap.h"

static bool num_eq(const char *s, double want)
{
	double d = 0;
	int64_t iv;
	bool isint;
	struct js_err e;
	const char *end = js_number(s, s + strlen(s), &d, &iv, &isint, &e);

	return end == s + strlen(s) && !memcmp(&d, &want, sizeof(d));
}

static bool num_bad(const char *s)
{
	double d;
	int64_t iv;
	bool isint;
	struct js_err e = { 0 };
	const char *end = js_number(s, s + strlen(s), &d, &iv, &isint, &e);

	return end != s + strlen(s) || !end;
}

static bool skip_ok(const char *s)
{
	struct js_err e = { 0 };
	const char *end = js_skip_value(s, s + strlen(s), &e);

	return end && js_ws(end, s + strlen(s)) == s + strlen(s);
}

/* Random decimals of every length, compared with glibc's correctly rounded strtod. */
static long random_numbers(long n)
{
	uint64_t x = 88172645463325252ULL;
	long bad = 0, i;
	char buf[64];

	for (i = 0; i < n; i++) {
		int idig, fdig, k;
		char *p = buf;
		double d, ref;
		int64_t iv;
		bool isint;
		struct js_err e;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		idig = 1 + (int)(x % 19);
		fdig = (int)((x >> 8) % 10);
		if ((x >> 20) % 8 == 0)
			*p++ = '-';
		*p++ = (char)('1' + (x >> 24) % 9);
		for (k = 1; k < idig; k++)
			*p++ = (char)('0' + (x >> (k % 50)) % 10);
		if (fdig) {
			*p++ = '.';
			for (k = 0; k < fdig; k++)
				*p++ = (char)('0' + (x >> ((k * 7) % 50)) % 10);
		}
		if ((x >> 30) % 16 == 0)
			p += sprintf(p, "e%d", (int)((x >> 35) % 40) - 20);
		*p = 0;
		ref = strtod(buf, NULL);
		if (js_number(buf, p, &d, &iv, &isint, &e) != p || memcmp(&d, &ref, sizeof(d))) {
			if (bad < 5)
				diag("mismatch: %s -> %.17g, strtod %.17g", buf, d, ref);
			bad++;
		}
	}
	return bad;
}

int main(void)
{
	char out[64];
	long n;

	/* numbers */
	ok(num_eq("0", 0.0), "0");
	ok(num_eq("-0", -0.0), "-0 keeps its sign");
	ok(num_eq("2204338330653.969", 2204338330653.969), "fractional microseconds");
	ok(num_eq("6022337937378.7422", 6022337937378.7422), "17 significant digits");
	ok(num_eq("1697545873454325.123", 1697545873454325.123), "absolute epoch us with ns (19 digits)");
	ok(num_eq("1683564901548726", 1683564901548726.0), "integer epoch microseconds");
	ok(num_eq("9.9999999999999998e-13", 9.9999999999999998e-13), "exponent form");
	ok(num_eq("1e308", 1e308), "1e308");
	ok(num_eq("1e-400", 0.0), "underflow to 0");
	ok(num_eq("123456789012345678901234567890", 123456789012345678901234567890.0),
	   "more than 19 digits");
	ok(num_eq("0.1", 0.1) && num_eq("3.086", 3.086), "short decimals");
	ok(num_bad("01") && num_bad("1.") && num_bad(".5") && num_bad("-") && num_bad("1e") &&
		   num_bad("+1"),
	   "invalid numbers are rejected");
	n = random_numbers(500000);
	ok(n == 0, "500000 random decimals bit-exact with strtod (%ld mismatches)", n);

	/* skipping */
	ok(skip_ok("{\"a\": [1, 2, {\"b\": null}], \"c\": \"x\\\"y\", \"d\": true}"), "nested object");
	ok(skip_ok("  [ ]  ") && skip_ok("{}") && skip_ok("\"\\u00e9\""), "empty containers, escapes");
	ok(!skip_ok("{\"a\": 1,}") && !skip_ok("[1 2]") && !skip_ok("{\"a\" 1}"),
	   "trailing comma, missing comma, missing colon rejected");
	ok(!skip_ok("[1, 2") && !skip_ok("{\"a\": \"unterminated}") && !skip_ok("tru"),
	   "truncated input rejected");
	ok(!skip_ok("\"bad \\x escape\"") && !skip_ok("\"\\u12G4\""), "bad escapes rejected");
	{
		char deep[2 * JS_MAX_DEPTH + 8];
		size_t i;

		for (i = 0; i < JS_MAX_DEPTH + 2; i++)
			deep[i] = '[';
		for (; i < 2 * (JS_MAX_DEPTH + 2); i++)
			deep[i] = ']';
		deep[i] = 0;
		ok(!skip_ok(deep), "nesting deeper than %d is refused, not a stack overflow",
		   JS_MAX_DEPTH);
	}

	/* strings */
	{
		const char *src = "a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00";
		long len = js_unescape(src, strlen(src), out);

		ok(len == 12 && !memcmp(out, "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80", 12),
		   "escapes and surrogate pairs decode to UTF-8");
		ok(js_unescape("\\q", 2, out) < 0, "bad escape refused by the decoder");
	}
	return done_testing();
}

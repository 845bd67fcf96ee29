/* SPDX-License-Identifier: MIT */
/* tl_json_compact() writes what cJSON_PrintUnformatted() writes, byte for
 * byte: the op sheets group by that text, so a difference would split or
 * merge groups. Held against cJSON on hand-picked values and on random
 * documents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/base_internal.h"
#include "tap.h"

static int same_as_cjson(const cJSON *v, const char *what)
{
	char *want = cJSON_PrintUnformatted(v), *got = NULL;
	size_t len = 0, cap = 0;
	int err = tl_json_compact(v, &got, &len, &cap);
	int same = !err && want && got && !strcmp(want, got) && strlen(got) == len;

	if (!same)
		diag("%s: cJSON '%s', ours '%s'", what, want ? want : "(null)", got ? got : "(null)");
	free(want);
	free(got);
	return same;
}

static const char *const docs[] = {
	"[[8944,1024],[1024,2816]]",
	"[]", "{}", "[[]]", "null", "true", "false", "0", "-0", "-0.0", "1", "-1",
	"2147483647", "2147483648", "-2147483648", "-2147483649", "4294967296",
	"9007199254740993", "1e300", "1.5", "0.1", "1e-05", "1E-7", "3.141592653589793",
	"0.30000000000000004", "123456789012345678901234567890", "-1.7976931348623157e308",
	"5e-324", "[1.0,2.50,1e2]",
	"\"\"", "\"plain\"", "\"q\\\"uo\\\\te\"", "\"tab\\tnl\\ncr\\rbs\\bff\\f\"",
	"\"ctl\\u0001\\u001f\"", "\"del\\u007f\"", "\"utf8 \\u00e9 \\u4e2d \\ud83d\\ude00\"",
	"\"slash \\/ kept\"",
	"[\"c10::BFloat16\",\"\",\"Scalar\"]",
	"{\"a\":1,\"b\":[true,false,null],\"c\":{\"d\":\"e\"}}",
	"[[\"\",\"\"],[[1,2],[3]],[\"1\",\"False\"]]",
};

/* a random JSON document of depth at most @depth into @b */
static void random_doc(char *b, size_t cap, size_t *n, int depth)
{
	static const char *const atoms[] = { "0", "-7", "12345678901", "0.5", "-2.25e-3", "1e21",
					     "null", "true", "\"x\"", "\"a\\\"b\"", "\"\\n\"" };
	int k = rand() % (depth > 0 ? 14 : 11), i, m;

	if (k < 11) {
		*n += (size_t)snprintf(b + *n, cap - *n, "%s", atoms[k]);
		return;
	}
	m = rand() % 4;
	*n += (size_t)snprintf(b + *n, cap - *n, "%s", k == 13 ? "{" : "[");
	for (i = 0; i < m && *n < cap - 64; i++) {
		if (i)
			*n += (size_t)snprintf(b + *n, cap - *n, ",");
		if (k == 13)
			*n += (size_t)snprintf(b + *n, cap - *n, "\"k%d\":", i);
		random_doc(b, cap, n, depth - 1);
	}
	*n += (size_t)snprintf(b + *n, cap - *n, "%s", k == 13 ? "}" : "]");
}

int main(void)
{
	size_t i, nd = sizeof(docs) / sizeof(docs[0]), bad = 0;
	char buf[8192];

	plan((int)nd + 2);
	for (i = 0; i < nd; i++) {
		cJSON *v = cJSON_Parse(docs[i]);

		ok(v && same_as_cjson(v, docs[i]), "%s as cJSON writes it", docs[i]);
		cJSON_Delete(v);
	}
	srand(12345);
	for (i = 0; i < 2000; i++) {
		size_t n = 0;
		cJSON *v;

		random_doc(buf, sizeof(buf), &n, 4);
		v = cJSON_Parse(buf);
		if (!v || !same_as_cjson(v, buf))
			bad++;
		cJSON_Delete(v);
	}
	ok(!bad, "2000 random documents as cJSON writes them (%zu differ)", bad);
	{
		char *got = NULL;
		size_t len = 0, cap = 0;

		ok(!tl_json_compact(NULL, &got, &len, &cap) && got && !*got && !len,
		   "no value: nothing appended");
		free(got);
	}
	return done_testing();
}

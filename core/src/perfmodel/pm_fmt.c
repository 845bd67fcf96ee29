/* SPDX-License-Identifier: MIT */
/* Dtypes and Python reprs as TraceLens's perf models use them (added with the
 * attention family; see perfmodel_internal.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "perfmodel/perfmodel_internal.h"

static int put(char *buf, size_t n, size_t *len, const char *s, size_t k)
{
	if (*len + k + 1 > n)
		return -ENOSPC;
	memcpy(buf + *len, s, k);
	*len += k;
	buf[*len] = 0;
	return 0;
}

/* Python's repr of tuple(a) for a JSON array of integers: "(1, 2)", "(5,)",
 * "()". */
int pm_tuple_repr(const cJSON *a, char *buf, size_t n)
{
	const cJSON *it;
	size_t len = 0;
	int count = 0, err;

	if (!n)
		return -ENOSPC;
	buf[0] = 0;
	if (!cJSON_IsArray(a))
		return -EINVAL;
	err = put(buf, n, &len, "(", 1);
	cJSON_ArrayForEach(it, a) {
		char num[32];
		int64_t v;

		if (err)
			break;
		if (!tl_json_i64(it, INT64_MIN, INT64_MAX, &v))
			return -EINVAL;
		snprintf(num, sizeof(num), "%s%lld", count ? ", " : "", (long long)v);
		err = put(buf, n, &len, num, strlen(num));
		count++;
	}
	if (!err && count == 1)
		err = put(buf, n, &len, ",", 1);
	if (!err)
		err = put(buf, n, &len, ")", 1);
	return err;
}

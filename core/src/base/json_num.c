/* SPDX-License-Identifier: MIT */
/* Numbers read from untrusted JSON (cJSON's doubles, strtod's) as integers.
 * The range test comes before the cast: converting a double that the target
 * type cannot hold is undefined behaviour (UBSan's float-cast-overflow), and
 * NaN or 1e400 from a file must not decide a size or an index. */
#include <math.h>

#include <cjson/cJSON.h>

#include "base/base_internal.h"

bool tl_dbl_to_i64(double d, int64_t lo, int64_t hi, int64_t *out)
{
	int64_t v;

	/* -2^63 and 2^63 are exact doubles; NaN fails the comparison */
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != floor(d))
		return false;
	v = (int64_t)d;
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

bool tl_json_i64(const struct cJSON *v, int64_t lo, int64_t hi, int64_t *out)
{
	return cJSON_IsNumber(v) && tl_dbl_to_i64(v->valuedouble, lo, hi, out);
}

/* SPDX-License-Identifier: MIT */
/* libFuzzer target for IR files, as `replay IR.json` and `sweep IR.json`
 * read them: the bytes are written to a scratch file and read back by the
 * command's reader (replay_read_ir: the small-input limit, gzip, a JSON list),
 * then each entry goes where the command sends it before a worker sees it:
 * the FLOP and byte models (tl_ir_flops, as sweep's roofline uses them), the
 * request to the worker (replay_request), the comparison of kernels
 * (kernel_verdict) and the namespace rule (op_namespace_len).
 *
 * Rules: tl_ir_flops returns 0 with finite, non-negative FLOPs and bytes that
 * are NaN or finite and non-negative, or -ENOTSUP / -EINVAL with one line and
 * NaN FLOPs; a request prints as JSON that parses back equal; the entry's own
 * kernel names as a reply are a MATCH; a namespace is no longer than the
 * name. Any breach aborts. Built with -DTL_FUZZ_STANDALONE it replays files
 * (standalone.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <tlreplay/tlreplay.h>

#include "replay/replay-common.h"	/* perf-plugin: the command's reader */
#include "standalone.h"

static void fail(const cJSON *entry, const char *why)
{
	const cJSON *op = cJSON_GetObjectItemCaseSensitive(entry, "op_name");

	fprintf(stderr, "fuzz_ir: %s: %s\n", cJSON_IsString(op) ? op->valuestring : "an entry", why);
	abort();
}

static void check_flops(const cJSON *e)
{
	double flops = 0, bytes = 0;
	const char *m;
	int err = tl_ir_flops(e, &flops, &bytes);

	if (!err) {
		if (!isfinite(flops) || flops < 0)
			fail(e, "FLOPs counted but not finite and non-negative");
		if (!isnan(bytes) && (!isfinite(bytes) || bytes < 0))
			fail(e, "bytes that are neither NaN nor finite and non-negative");
		return;
	}
	m = tl_last_error();
	if ((err != -ENOTSUP && err != -EINVAL) || !*m || strchr(m, '\n'))
		fail(e, "a refusal that is not -ENOTSUP or -EINVAL with one line");
	if (!isnan(flops))
		fail(e, "FLOPs given with an error");
	if (!isnan(bytes) && (!isfinite(bytes) || bytes < 0))
		fail(e, "an estimate of bytes that is neither NaN nor finite and non-negative");
}

static void check_request(const struct replay_opts *ro, cJSON *e)
{
	cJSON *req = replay_request(ro, e), *back;
	char *text;

	if (!req)
		return;
	text = cJSON_PrintUnformatted(req);
	if (text) {
		back = cJSON_Parse(text);
		/* cJSON prints non-finite numbers as null: compare what JSON can hold */
		if (!back)
			fail(e, "the request to the worker is not JSON");
		cJSON_Delete(back);
	}
	free(text);
	cJSON_Delete(req);
}

static void check_verdict(const cJSON *e)
{
	const cJSON *k, *n;
	cJSON *reply = cJSON_CreateObject(), *names = cJSON_AddArrayToObject(reply, "kernels");
	const char *v;
	bool any = false;

	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(e, "kernels")) {
		n = cJSON_GetObjectItemCaseSensitive(k, "name");
		if (!cJSON_IsString(n))
			goto out;	/* a nameless kernel matches nothing */
		cJSON_AddItemToArray(names, cJSON_CreateString(n->valuestring));
		any = true;
	}
	v = kernel_verdict(e, reply);
	if (any && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(e, "kernels")) && (!v || strcmp(v, "MATCH")))
		fail(e, "its own kernels replayed are not a MATCH");
out:
	cJSON_Delete(reply);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	struct replay_opts ro;
	cJSON *doc, *e;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/fuzz-ir.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	f = fdopen(fd, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	doc = replay_read_ir(path);
	unlink(path);
	if (!doc)
		return 0;
	replay_opts_init(&ro);
	cJSON_ArrayForEach(e, doc) {
		const cJSON *op = cJSON_GetObjectItemCaseSensitive(e, "op_name");

		check_flops(e);
		check_request(&ro, e);
		check_verdict(e);
		if (cJSON_IsString(op) && op_namespace_len(op->valuestring) > strlen(op->valuestring))
			fail(e, "a namespace longer than the name");
	}
	cJSON_Delete(doc);
	return 0;
}

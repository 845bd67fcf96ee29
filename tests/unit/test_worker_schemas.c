/* SPDX-License-Identifier: MIT */
/* Where a replay's schemas come from (tl_worker_schemas,
 * tl_schema_snapshot_path): the list a worker answers, with the namespaces
 * it was asked to import; a worker that refuses or answers without a list
 * is an error naming it; the snapshot is TLREPLAY_SCHEMAS when set, else the
 * newest torch-*.json of the bundled folder. The worker is a stand-in that
 * speaks only the protocol (fake_worker.py). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/common.h>
#include <tlreplay/ir.h>
#include <tlreplay/replay.h>

#include "tap.h"

static struct tl_worker *start(const char *mode)
{
	struct tl_worker_opts o = { .sz = sizeof(o),
				    .python = "/usr/bin/python3",
				    .script = "tests/unit/fake_worker.py",
				    .start_timeout_s = 30 };
	struct tl_worker *w = NULL;

	setenv("FAKE_WORKER_SCHEMAS", mode, 1);
	if (tl_worker_start(&o, &w))
		diag("cannot start the fake worker: %s", tl_last_error());
	return w;
}

int main(void)
{
	cJSON *ns = cJSON_Parse("{\"tltest\":[\"/x/ops.py\"]}");
	struct tl_worker *w = start("list");
	struct tl_schema_db *db = NULL;
	char torch[16], **v = NULL;
	const char *snap;
	size_t n = 99;
	int err;

	ok(w != NULL, "the fake worker starts");
	err = w ? tl_worker_schemas(w, ns, 30, &v, &n, torch, sizeof(torch)) : -1;
	ok(!err && n == 3 && v && !strcmp(v[0], "aten::relu(Tensor self) -> Tensor") && v[3] == NULL,
	   "the worker's schemas come back, NULL-terminated (%zu)", n);
	ok(!err && v && !strcmp(v[2], "tltest::op(Tensor self) -> Tensor"),
	   "the namespaces to import are sent with the request");
	ok(!err && !strcmp(torch, "9.9.9"), "the worker's torch version is given (%s)", torch);
	ok(!err && !tl_schema_db_from_strings((const char *const *)v, n, "live", &db) && db,
	   "the strings make a schema database");
	tl_schema_db_free(db);
	free(v);
	err = w ? tl_worker_schemas(w, NULL, 30, &v, &n, NULL, 0) : -1;
	ok(!err && n == 2, "no namespaces: the worker's own schemas (%zu)", n);
	free(v);
	tl_worker_stop(w);

	w = start("refuse");
	err = w ? tl_worker_schemas(w, ns, 30, &v, &n, torch, sizeof(torch)) : 0;
	ok(err == -EPROTO && !v && n == 0 && strstr(tl_last_error(), "cannot import tltest"),
	   "a refusal is -EPROTO quoting the worker (%s)", tl_last_error());
	tl_worker_stop(w);
	w = start("bare");
	err = w ? tl_worker_schemas(w, ns, 30, &v, &n, torch, sizeof(torch)) : 0;
	ok(err == -EPROTO && !v && strstr(tl_last_error(), "without a schema list"),
	   "an answer without a list is -EPROTO (%s)", tl_last_error());
	tl_worker_stop(w);
	cJSON_Delete(ns);

	setenv("TLREPLAY_SCHEMAS", "/some/where/torch-1.0.json", 1);
	snap = tl_schema_snapshot_path();
	ok(snap && !strcmp(snap, "/some/where/torch-1.0.json"), "TLREPLAY_SCHEMAS is the snapshot when set");
	unsetenv("TLREPLAY_SCHEMAS");
	/* this test runs from build/tests/: ../../core/replay/schemas is the source tree's */
	snap = tl_schema_snapshot_path();
	ok(snap && strstr(snap, "/core/replay/schemas/torch-") && strstr(snap, ".json"),
	   "else the newest bundled snapshot (%s)", snap ? snap : "none");
	done_testing();
}

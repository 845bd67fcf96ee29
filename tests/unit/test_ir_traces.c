/* SPDX-License-Identifier: MIT */
/* IR entries for every kernel-launching cpu_op of the real bert and qwen
 * traces (H100 and MI300, torch 2.6/2.7) against the torch 1.13 schema
 * snapshot: how many get one, and why the others do not. Ops that torch 1.13
 * does not have must fail with -ENOENT, never -EINVAL. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <tlreplay/tlreplay.h>

#include "tap.h"

static const char *const traces[] = {
	"h100/gaunernst_bert-small-uncased__1016001.json.gz",
	"mi300/gaunernst_bert-small-uncased__1016001.json.gz",
	"h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
	"mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
};

/* The snapshot reaches 2150 of 2206 (97.5%) on these traces; the rest is
 * aten::_flash_attention_forward, which torch 1.13 does not have. */
#define MIN_RATE 0.97

struct failure {
	char key[200];
	int err;
	unsigned count;
	char example[400];
};

static struct failure fails[256];
static size_t nfails;

static void note_failure(int err, const char *op, const char *msg)
{
	char key[200];
	size_t i;

	snprintf(key, sizeof(key), "%s %s", err == -ENOENT ? "ENOENT" : err == -EINVAL ? "EINVAL" :
					   err == -ENODATA ? "ENODATA" : "other", op);
	for (i = 0; i < nfails; i++)
		if (!strcmp(fails[i].key, key))
			break;
	if (i == nfails) {
		if (nfails == sizeof(fails) / sizeof(fails[0]))
			return;
		nfails++;
		snprintf(fails[i].key, sizeof(fails[i].key), "%s", key);
		snprintf(fails[i].example, sizeof(fails[i].example), "%s", msg);
		fails[i].err = err;
	}
	fails[i].count++;
}

static bool has_shapes(struct tl_trace *tr, uint64_t uid)
{
	cJSON *a = NULL;
	bool r;

	if (tl_trace_event_args(tr, uid, &a))
		return false;
	r = cJSON_GetObjectItemCaseSensitive(a, "Input Dims") &&
	    cJSON_GetObjectItemCaseSensitive(a, "Input type");
	cJSON_Delete(a);
	return r;
}

/* The entry has docs/ir.md's shape: every tensor value has exactly the four keys. */
static bool well_formed(const cJSON *e, const char **why)
{
	const cJSON *ir = cJSON_GetObjectItemCaseSensitive(e, "replay_ir"), *arg, *v, *k;
	const char *lists[] = { "list_pos_args", "list_kwargs" };
	size_t i;

	*why = "no replay_ir";
	if (!cJSON_IsObject(ir))
		return false;
	for (i = 0; i < 2; i++) {
		cJSON_ArrayForEach(arg, cJSON_GetObjectItemCaseSensitive(ir, lists[i])) {
			v = cJSON_GetObjectItemCaseSensitive(arg, "value");
			*why = "argument without arg_name/arg_type/value";
			if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(arg, "arg_name")) ||
			    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(arg, "arg_type")) || !v)
				return false;
			if (cJSON_IsObject(v) && cJSON_GetArraySize(v) != 4) {
				*why = "tensor value without exactly 4 keys";
				return false;
			}
		}
	}
	*why = "no kernels";
	k = cJSON_GetObjectItemCaseSensitive(e, "kernels");
	return cJSON_IsArray(k) && cJSON_GetArraySize(k) > 0 &&
	       cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "schema"));
}

int main(void)
{
	const char *shared = getenv("TLREPLAY_SHARED"), *snap = getenv("TLREPLAY_SCHEMAS");
	char dir[4096], path[4200];
	struct tl_schema_db *db = NULL;
	struct stat st;
	unsigned total = 0, built = 0, einval = 0, malformed = 0;
	size_t t, i;

	if (!shared || !*shared)
		skip_all("../shared/traces absent (TLREPLAY_SHARED unset)");
	snprintf(dir, sizeof(dir), "%s/traces/TraceLens/tests/traces", shared);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		skip_all("../shared/traces absent");
	if (!snap || !*snap)
		snap = "core/replay/schemas/torch-1.13.json.gz";
	if (tl_schema_db_load(snap, &db)) {
		ok(0, "load %s: %s", snap, tl_last_error());
		return done_testing();
	}
	ok(1, "loaded %zu schemas (%s)", tl_schema_db_count(db), tl_schema_db_label(db));

	for (t = 0; t < sizeof(traces) / sizeof(traces[0]); t++) {
		struct tl_trace *tr = NULL;
		struct tl_launcher_set *ls = NULL;
		struct tl_ir_opts io = { .sz = sizeof(io), .db = db };
		unsigned n = 0, good = 0;

		snprintf(path, sizeof(path), "%s/%s", dir, traces[t]);
		if (tl_trace_open(path, NULL, &tr)) {
			ok(0, "open %s: %s", traces[t], tl_last_error());
			continue;
		}
		if (tl_launchers(tr, NULL, &ls)) {
			ok(0, "launchers of %s: %s", traces[t], tl_last_error());
			tl_trace_close(tr);
			continue;
		}
		for (i = 0; i < ls->n; i++) {
			uint64_t uid = ls->v[i].uid;
			struct tl_event_info ev;
			cJSON *e = NULL;
			const char *why;
			int err;

			tl_trace_event(tr, uid, &ev);
			if (ev.kind != TL_KIND_CPU_OP || !has_shapes(tr, uid))
				continue;
			n++;
			err = tl_ir_entry(tr, uid, &io, &e);
			if (err) {
				note_failure(err, ev.name, tl_last_error());
				einval += err == -EINVAL;
				continue;
			}
			if (!well_formed(e, &why)) {
				if (!malformed++)
					diag("malformed entry for uid %llu %s: %s", (unsigned long long)uid,
					     ev.name, why);
			} else {
				good++;
			}
			cJSON_Delete(e);
		}
		diag("%s: %u of %u kernel-launching cpu_ops with shapes get an IR entry", traces[t], good,
		     n);
		total += n;
		built += good;
		tl_launcher_set_free(ls);
		tl_trace_close(tr);
	}
	for (i = 0; i < nfails; i++)
		diag("failed x%u: %s -- e.g. %s", fails[i].count, fails[i].key, fails[i].example);
	diag("total: %u of %u (%.1f%%)", built, total, total ? 100.0 * built / total : 0.0);
	ok(total > 0, "found kernel-launching cpu_ops with shapes (%u)", total);
	ok(total && (double)built / total >= MIN_RATE, "IR entries for at least %.0f%% of them",
	   MIN_RATE * 100);
	ok(einval == 0, "no -EINVAL: ops that torch 1.13 has always match (%u did not)", einval);
	ok(malformed == 0, "every entry is well formed (%u not)", malformed);
	tl_schema_db_free(db);
	return done_testing();
}

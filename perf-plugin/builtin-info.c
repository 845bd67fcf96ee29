/* SPDX-License-Identifier: MIT */
/* tlreplay info: what a trace is (like perf report --header): size, events
 * by kind, time span, devices, distributed setup, runtime versions, links. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"

struct facts {
	uint64_t counts[TL_KIND_COUNT];
	uint64_t ngpu, nlinked;
	double t0, t1, g0, g1;
};

static void gather(struct tl_trace *tr, struct facts *f)
{
	uint64_t i, n = tl_trace_nevents(tr);

	memset(f, 0, sizeof(*f));
	f->t0 = f->g0 = INFINITY;
	f->t1 = f->g1 = -INFINITY;
	tl_trace_kind_counts(tr, f->counts);
	tl_trace_link(tr, NULL);
	for (i = 0; i < n; i++) {
		struct tl_event_info e;
		double end;

		tl_trace_event(tr, i, &e);
		if (!e.has_ts || e.kind == TL_KIND_METADATA)
			continue;
		end = e.ts + (e.has_dur ? e.dur : 0);
		if (e.ts < f->t0)
			f->t0 = e.ts;
		if (end > f->t1)
			f->t1 = end;
		if (!tl_kind_is_gpu(e.kind))
			continue;
		f->ngpu++;
		f->nlinked += tl_event_linked(tr, i);
		if (e.ts < f->g0)
			f->g0 = e.ts;
		if (end > f->g1)
			f->g1 = end;
	}
}

static const char *meta_str(const cJSON *m, const char *key, char *buf, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);

	if (cJSON_IsString(v))
		return v->valuestring;
	if (cJSON_IsNumber(v)) {
		if (v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15)
			snprintf(buf, n, "%.0f", v->valuedouble);
		else
			fmt_pyfloat(buf, n, v->valuedouble);
		return buf;
	}
	return NULL;
}

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(info, opts_nav_json, "what the trace holds: events, span, devices, versions",
	"usage: tlreplay info [-i TRACE] [-j] [-o FILE]\n"
	"\n"
	"What the trace is: file and JSON size, events by kind, time span, GPU events and how\n"
	"many are linked to a CPU launch, the devices (deviceProperties), the distributed\n"
	"setup (distributedInfo) and the runtime versions it records. -j prints all of it,\n"
	"with every top-level metadata key, as one JSON object.\n"
	"\n");
/* clang-format on */

static int cmd_info(int argc, char **argv)
{
	static const char *const version_keys[] = {
		"cuda_runtime_version", "cuda_driver_version", "cupti_version", "hip_runtime_version",
		"hip_driver_version", "roctracer_version", "schemaVersion",
	};
	struct common_opts co = { 0 };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct facts f;
	const cJSON *meta, *devs, *dist, *d;
	struct stat st;
	char buf[64];
	int rc = 1, k;
	size_t i;

	if (!opts_parse(&info_cmd, argc, argv, &co, &rc))
		return rc;
	if (cli_check_format("info", &co))
		return 1;
	if (cli_no_args("info", argc, argv))
		return 1;
	if (cli_no_sep("info", &co))
		return 1;
	if (cli_open_trace(&co, &tr))
		return 1;
	if (out_open(&o, co.output))
		goto out;
	gather(tr, &f);
	meta = tl_trace_metadata(tr);
	devs = cJSON_GetObjectItemCaseSensitive(meta, "deviceProperties");
	dist = cJSON_GetObjectItemCaseSensitive(meta, "distributedInfo");
	if (stat(tl_trace_path(tr), &st))
		st.st_size = 0;
	if (co.json) {
		char *s;
		cJSON *j = cJSON_CreateObject(), *kinds = cJSON_AddObjectToObject(j, "events_by_kind");

		cJSON_AddStringToObject(j, "path", tl_trace_path(tr));
		cJSON_AddNumberToObject(j, "file_bytes", (double)st.st_size);
		cJSON_AddNumberToObject(j, "json_bytes", (double)tl_trace_text_size(tr));
		cJSON_AddNumberToObject(j, "events", (double)tl_trace_nevents(tr));
		for (k = 0; k < TL_KIND_COUNT; k++)
			if (f.counts[k])
				cJSON_AddNumberToObject(kinds, tl_kind_name(k), (double)f.counts[k]);
		if (isfinite(f.t0))
			cJSON_AddNumberToObject(j, "span_us", f.t1 - f.t0);
		if (f.ngpu)
			cJSON_AddNumberToObject(j, "gpu_span_us", f.g1 - f.g0);
		cJSON_AddNumberToObject(j, "gpu_events", (double)f.ngpu);
		cJSON_AddNumberToObject(j, "gpu_events_linked", (double)f.nlinked);
		cJSON_AddStringToObject(j, "linking_key", tl_trace_linking_key(tr));
		cJSON_AddItemToObject(j, "metadata", cJSON_Duplicate(meta, true));
		s = cJSON_PrintUnformatted(j);
		fprintf(o.f, "%s\n", s ? s : "{}");
		free(s);
		cJSON_Delete(j);
		rc = out_close(&o, false);
		goto out;
	}
	fprintf(o.f, "trace        %s\n", tl_trace_path(tr));
	fprintf(o.f, "size         %.1f MB on disk, %.1f MB of JSON\n", (double)st.st_size / 1e6,
		(double)tl_trace_text_size(tr) / 1e6);
	fprintf(o.f, "events       %llu:", (unsigned long long)tl_trace_nevents(tr));
	for (k = 0; k < TL_KIND_COUNT; k++)
		if (f.counts[k])
			fprintf(o.f, " %s %llu", tl_kind_name(k), (unsigned long long)f.counts[k]);
	fputc('\n', o.f);
	if (isfinite(f.t0)) {
		fmt_us(buf, sizeof(buf), f.t1 - f.t0);
		fprintf(o.f, "time span    %s", buf);
		if (f.ngpu) {
			fmt_us(buf, sizeof(buf), f.g1 - f.g0);
			fprintf(o.f, " (GPU events span %s)", buf);
		}
		fputc('\n', o.f);
	}
	fprintf(o.f, "GPU events   %llu, %llu linked to a CPU launch by %s\n", (unsigned long long)f.ngpu,
		(unsigned long long)f.nlinked, tl_trace_linking_key(tr));
	if (cJSON_IsArray(devs) && cJSON_GetArraySize(devs) > 0) {
		i = 0;
		cJSON_ArrayForEach(d, devs) {
			char b1[32], b2[32], b3[32], b4[32];
			const char *name = meta_str(d, "name", b1, sizeof(b1));
			const char *maj = meta_str(d, "computeMajor", b2, sizeof(b2));
			const char *min = meta_str(d, "computeMinor", b3, sizeof(b3));
			const char *sms = meta_str(d, "numSms", b4, sizeof(b4));
			const cJSON *mem = cJSON_GetObjectItemCaseSensitive(d, "totalGlobalMem");

			fprintf(o.f, "device %-5zu %s", i, name && *name ? name : "(unnamed)");
			if (maj && min)
				fprintf(o.f, ", compute %s.%s", maj, min);
			if (sms)
				fprintf(o.f, ", %s SMs", sms);
			if (cJSON_IsNumber(mem))
				fprintf(o.f, ", %.0f GiB", mem->valuedouble / (1u << 30));
			fputc('\n', o.f);
			i++;
		}
	}
	if (cJSON_IsObject(dist)) {
		char b1[32], b2[32], b3[32];
		const char *be = meta_str(dist, "backend", b1, sizeof(b1));
		const char *rank = meta_str(dist, "rank", b2, sizeof(b2));
		const char *ws = meta_str(dist, "world_size", b3, sizeof(b3));

		fprintf(o.f, "distributed  %s, rank %s of %s\n", be ? be : "?", rank ? rank : "?",
			ws ? ws : "?");
	}
	for (i = 0, k = 0; i < TL_ARRAY_N(version_keys); i++) {
		const char *v = meta_str(meta, version_keys[i], buf, sizeof(buf));
		size_t l = strlen(version_keys[i]);

		if (!v)
			continue;
		/* "cuda_runtime_version" -> "cuda_runtime" */
		if (l > 8 && !strcmp(version_keys[i] + l - 8, "_version"))
			l -= 8;
		fprintf(o.f, "%s%.*s %s", k++ ? ", " : "versions     ", (int)l, version_keys[i], v);
	}
	if (k)
		fputc('\n', o.f);
	rc = out_close(&o, false);
out:
	tl_trace_close(tr);
	return rc;
}

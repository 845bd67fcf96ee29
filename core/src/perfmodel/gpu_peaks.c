/* SPDX-License-Identifier: MIT */
/* GPU peaks (tlreplay/gpu.h): the built-in table, looking a device up by
 * its deviceProperties name, spec files (--gpu-spec) and the roof of a row.
 *
 * Every number is dense (no 2:4 sparsity: NVIDIA's tensor figures marked
 * "with sparsity" are halved), at the boost clock the vendor quotes, for the
 * device PyTorch sees (one GCD of an MI250X/MI250: the package figure
 * halved). TFLOP/s (TOP/s for ints) and GB/s (1e9 B/s) below; 0 means the
 * part has no such unit. Where a vendor gives no figure for a vector type,
 * it is 0 and tl_gpu_peak() falls back to vector fp32, which is what
 * PyTorch's elementwise kernels compute narrow types in. */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <strings.h>

#include <cjson/cJSON.h>
#include <tlreplay/gpu.h>
#include <tlreplay/input.h>
#include <tlreplay/trace.h>

#include "perfmodel/perfmodel_internal.h"

/* One row of the built-in table, in TFLOP/s and GB/s. */
struct gpu_row {
	const char *name, *vendor;
	/* matrix and vector peaks in enum tl_gpu_dtype order:
	 * fp64 fp32 tf32 bf16 fp16 fp8 fp6 fp4 int8 int4 */
	double mx[TL_GPU_NDTYPES], vec[TL_GPU_NDTYPES];
	double bw_gbs, mem_gb;
	int sms, cc_major, cc_minor;
	/* Matching (see find_score()): the model token that must be in the
	 * name, tokens that favour this variant, tokens that rule it out, and
	 * the memory range in GiB of totalGlobalMem. */
	const char *model;
	const char *favour[4], *exclude[4];
	double gib_lo, gib_hi;
	const char *source;
};

/* Peaks shared by variants that differ in memory only: the four A100s
 * (NVIDIA A100 datasheet, 2021: the same figures for SXM and PCIe, 40 and
 * 80 GB); MI300X and MI325X; H100 NVL and H200 NVL (same die and power). */
#define A100_PEAKS { 19.5, 0, 156, 312, 312, 0, 0, 0, 624, 1248 }, { 9.7, 19.5, 0, 39, 78, 0, 0, 0, 0, 0 }
#define MI300X_PEAKS \
	{ 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 0, 0, 2614.9, 0 }, { 81.7, 163.4, 0, 0, 0, 0, 0, 0, 0, 0 }
#define HOPPER_NVL_PEAKS { 60, 0, 417.5, 835.5, 835.5, 1670.5, 0, 0, 1670.5, 0 }, { 30, 60, 0, 0, 0, 0, 0, 0, 0, 0 }

/* clang-format off */
static const struct gpu_row builtin[] = {
	/* NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), table 3,
	 * H100 SXM5 column (dense); bandwidth from the H100 datasheet (2023). */
	{ "H100 SXM", "NVIDIA",
	  { 66.9, 0, 494.7, 989.4, 989.4, 1978.9, 0, 0, 1978.9, 0 },
	  { 33.5, 66.9, 0, 133.8, 133.8, 0, 0, 0, 0, 0 },
	  3352, 80, 132, 9, 0, "H100", { "SXM5", "SXM", "HBM3" }, { "PCIE", "NVL" }, 70, 90,
	  "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), H100 SXM5; H100 datasheet (2023)" },
	/* Same whitepaper, H100 PCIe column; 2.0 TB/s from the H100 datasheet. */
	{ "H100 PCIe", "NVIDIA",
	  { 51.2, 0, 378.0, 756.0, 756.0, 1513.0, 0, 0, 1513.0, 0 },
	  { 25.6, 51.2, 0, 102.4, 102.4, 0, 0, 0, 0, 0 },
	  2000, 80, 114, 9, 0, "H100", { "PCIE" }, { "SXM", "SXM5", "NVL", "HBM3" }, 70, 90,
	  "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), H100 PCIe; H100 datasheet (2023)" },
	/* NVIDIA H100 datasheet (2023), H100 NVL column, per GPU, sparse halved. */
	{ "H100 NVL", "NVIDIA",
	  HOPPER_NVL_PEAKS,
	  3900, 94, 132, 9, 0, "H100", { "NVL" }, { "PCIE", "SXM" }, 88, 100,
	  "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 NVL" },
	/* NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column. The
	 * die and clocks are H100 SXM5's: vector fp16/bf16 from its whitepaper. */
	{ "H200", "NVIDIA",
	  { 67, 0, 494.5, 989.5, 989.5, 1979, 0, 0, 1979, 0 },
	  { 34, 67, 0, 133.8, 133.8, 0, 0, 0, 0, 0 },
	  4800, 141, 132, 9, 0, "H200", { "SXM", "HBM3E" }, { "NVL" }, 125, 150,
	  "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM" },
	{ "H200 NVL", "NVIDIA",
	  HOPPER_NVL_PEAKS,
	  4800, 141, 132, 9, 0, "H200", { "NVL" }, { "SXM" }, 125, 150,
	  "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 NVL" },
	/* NVIDIA HGX B200 datasheet (2025), individual Blackwell GPU column,
	 * tensor figures with sparsity halved. */
	{ "B200", "NVIDIA",
	  { 37, 0, 1100, 2250, 2250, 4500, 4500, 9000, 4500, 0 },
	  { 37, 75, 0, 0, 0, 0, 0, 0, 0, 0 },
	  7700, 180, 148, 10, 0, "B200", { "SXM", "HGX" }, { 0 }, 165, 185,
	  "NVIDIA HGX B200 datasheet (2025), per GPU" },
	/* NVIDIA GB200 NVL72 datasheet (2025), individual Blackwell GPU column. */
	{ "GB200", "NVIDIA",
	  { 40, 0, 1250, 2500, 2500, 5000, 5000, 10000, 5000, 0 },
	  { 40, 80, 0, 0, 0, 0, 0, 0, 0, 0 },
	  8000, 186, 0, 10, 0, "GB200", { 0 }, { 0 }, 170, 195,
	  "NVIDIA GB200 NVL72 datasheet (2025), per GPU" },
	/* NVIDIA A100 Tensor Core GPU datasheet (2021) for the tensor figures
	 * and bandwidths; vector fp16/bf16 from the NVIDIA A100 Tensor Core GPU
	 * Architecture whitepaper (2020), table 1. */
	{ "A100 SXM 80GB", "NVIDIA",
	  A100_PEAKS,
	  2039, 80, 108, 8, 0, "A100", { "SXM4", "SXM", "80GB" }, { "PCIE", "40GB" }, 70, 90,
	  "NVIDIA A100 datasheet (2021), A100 80GB SXM; A100 architecture whitepaper (2020)" },
	{ "A100 SXM 40GB", "NVIDIA",
	  A100_PEAKS,
	  1555, 40, 108, 8, 0, "A100", { "SXM4", "SXM", "40GB" }, { "PCIE", "80GB" }, 35, 45,
	  "NVIDIA A100 datasheet (2021), A100 40GB SXM; A100 architecture whitepaper (2020)" },
	{ "A100 PCIe 80GB", "NVIDIA",
	  A100_PEAKS,
	  1935, 80, 108, 8, 0, "A100", { "PCIE", "80GB" }, { "SXM4", "SXM", "40GB" }, 70, 90,
	  "NVIDIA A100 datasheet (2021), A100 80GB PCIe; A100 architecture whitepaper (2020)" },
	{ "A100 PCIe 40GB", "NVIDIA",
	  A100_PEAKS,
	  1555, 40, 108, 8, 0, "A100", { "PCIE", "40GB" }, { "SXM4", "SXM", "80GB" }, 35, 45,
	  "NVIDIA A100 datasheet (2021), A100 40GB PCIe; A100 architecture whitepaper (2020)" },
	/* NVIDIA L40S datasheet (2023), sparse halved. It gives no fp64, int8
	 * or int4: Ada runs fp64 at 1/64 of fp32, non-tensor fp16 at the fp32
	 * rate, int8 at the fp8 rate and int4 at twice it (NVIDIA Ada GPU
	 * Architecture whitepaper, 2022). */
	{ "L40S", "NVIDIA",
	  { 0, 0, 183, 362.05, 362.05, 733, 0, 0, 733, 1466 },
	  { 1.431, 91.6, 0, 91.6, 91.6, 0, 0, 0, 0, 0 },
	  864, 48, 142, 8, 9, "L40S", { 0 }, { 0 }, 40, 50,
	  "NVIDIA L40S datasheet (2023); NVIDIA Ada GPU Architecture whitepaper (2022) for fp64, fp16, int8, int4" },
	/* AMD Instinct MI300X data sheet (2023); AMD CDNA 3 architecture
	 * white paper (2023). */
	{ "MI300X", "AMD",
	  MI300X_PEAKS,
	  5300, 192, 304, 9, 4, "MI300X", { 0 }, { 0 }, 180, 200,
	  "AMD Instinct MI300X data sheet (2023); AMD CDNA 3 white paper (2023)" },
	/* AMD Instinct MI325X data sheet (2024): MI300X's compute, more HBM3E. */
	{ "MI325X", "AMD",
	  MI300X_PEAKS,
	  6000, 256, 304, 9, 4, "MI325X", { 0 }, { 0 }, 240, 265,
	  "AMD Instinct MI325X data sheet (2024)" },
	/* AMD Instinct MI355X data sheet (2025); CDNA 4 has no TF32. */
	{ "MI355X", "AMD",
	  { 78.6, 157.3, 0, 2516.6, 2516.6, 5033.2, 10066.3, 10066.3, 5033.2, 0 },
	  { 78.6, 157.3, 0, 0, 0, 0, 0, 0, 0, 0 },
	  8000, 288, 256, 9, 5, "MI355X", { 0 }, { 0 }, 270, 300,
	  "AMD Instinct MI355X data sheet (2025)" },
	/* AMD Instinct MI250X data sheet (2021), halved: PyTorch sees each of
	 * the two GCDs as a device (110 CUs, 64 GB, half the bandwidth).
	 * Vector fp32 is the packed-FP32 figure. ROCm names both MI250X and
	 * MI250 "AMD Instinct MI250X/MI250": the CU count tells them apart. */
	{ "MI250X", "AMD",
	  { 47.85, 47.85, 0, 191.5, 191.5, 0, 0, 0, 191.5, 191.5 },
	  { 23.95, 47.85, 0, 0, 0, 0, 0, 0, 0, 0 },
	  1638.4, 64, 110, 9, 0, "MI250X", { 0 }, { 0 }, 60, 66,
	  "AMD Instinct MI250X data sheet (2021), per GCD (package figures halved)" },
	{ "MI250", "AMD",
	  { 45.25, 45.25, 0, 181.05, 181.05, 0, 0, 0, 181.05, 181.05 },
	  { 22.65, 45.25, 0, 0, 0, 0, 0, 0, 0, 0 },
	  1638.4, 64, 104, 9, 0, "MI250", { 0 }, { 0 }, 60, 66,
	  "AMD Instinct MI250 data sheet (2021), per GCD (package figures halved)" },
	/* AMD Instinct MI210 data sheet (2022); vector fp32 is packed FP32. */
	{ "MI210", "AMD",
	  { 45.3, 45.3, 0, 181.0, 181.0, 0, 0, 0, 181.0, 181.0 },
	  { 22.6, 45.3, 0, 0, 0, 0, 0, 0, 0, 0 },
	  1638.4, 64, 104, 9, 0, "MI210", { 0 }, { 0 }, 60, 66,
	  "AMD Instinct MI210 data sheet (2022)" },
};
/* clang-format on */

#define NBUILTIN TL_ARRAY_SIZE(builtin)

static const char *const dtype_names[TL_GPU_NDTYPES] = {
	"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4",
};

/* A device of a set: its peaks, how it is matched, and what it owns. */
struct gpu_ent {
	struct tl_gpu g;
	const struct gpu_row *row;	/* the built-in row it comes from, or NULL */
	char **match;			/* spec-file names, normalised; NULL-terminated */
	char *source;			/* owned text of g.source for spec-file devices */
	bool from_file;
};

struct tl_gpu_set {
	struct gpu_ent *ent;
	size_t n;
};

/* The built-in table as tl_gpu values, made once (the rows are constant). */
static struct tl_gpu builtin_gpu[NBUILTIN];
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void gpu_of_row(struct tl_gpu *g, const struct gpu_row *r)
{
	size_t d;

	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", r->name);
	snprintf(g->vendor, sizeof(g->vendor), "%s", r->vendor);
	for (d = 0; d < TL_GPU_NDTYPES; d++) {
		g->peak[TL_GPU_MATRIX][d] = r->mx[d] * 1e12;
		g->peak[TL_GPU_VECTOR][d] = r->vec[d] * 1e12;
	}
	g->mem_bw = r->bw_gbs * 1e9;
	g->mem_bytes = r->mem_gb * 1e9;
	g->sms = r->sms;
	g->source = r->source;
}

static void builtin_init(void)
{
	size_t i;

	for (i = 0; i < NBUILTIN; i++)
		gpu_of_row(&builtin_gpu[i], &builtin[i]);
}

/* ------------------------------------------------------------------ names */

/* @s upper-cased with every run of other characters than letters and
 * digits made one space, trimmed: "NVIDIA A100-SXM4-80GB" -> "NVIDIA A100
 * SXM4 80GB". Token-sequence containment on this form keeps "B200" from
 * matching "GB200". */
static void norm_name(char *out, size_t n, const char *s)
{
	size_t k = 0;
	bool sep = false;

	for (; s && *s && k + 2 < n; s++) {
		if (isalnum((unsigned char)*s)) {
			if (sep && k)
				out[k++] = ' ';
			out[k++] = (char)toupper((unsigned char)*s);
			sep = false;
		} else {
			sep = true;
		}
	}
	out[k] = '\0';
}

/* Whether the token sequence @needle occurs in @hay (both normalised). */
static bool has_tokens(const char *hay, const char *needle)
{
	size_t ln = strlen(needle);
	const char *p;

	if (!ln)
		return false;
	for (p = hay; (p = strstr(p, needle)); p++)
		if ((p == hay || p[-1] == ' ') && (p[ln] == '\0' || p[ln] == ' '))
			return true;
	return false;
}

/* Names equal but for case and punctuation ("h100-sxm" is "H100 SXM"). */
static bool same_name(const char *a, const char *b)
{
	char na[96], nb[96];

	norm_name(na, sizeof(na), a);
	norm_name(nb, sizeof(nb), b);
	return !strcmp(na, nb);
}

/* ------------------------------------------------------------------ lookup */

static size_t set_count(const struct tl_gpu_set *set)
{
	return set ? set->n : NBUILTIN;
}

/* Device @i and its row (NULL for a spec-file device) and spec-file names. */
static const struct tl_gpu *set_get(const struct tl_gpu_set *set, size_t i, const struct gpu_row **row,
				    char *const **match)
{
	if (!set) {
		pthread_once(&builtin_once, builtin_init);
		*row = &builtin[i];
		*match = NULL;
		return &builtin_gpu[i];
	}
	*row = set->ent[i].row;
	*match = set->ent[i].match;
	return &set->ent[i].g;
}

/* How well device @i fits (name normalised in @nn): -1 when it does not.
 * A spec-file name that is in the device name wins over everything; then
 * the model token must be there and no excluding token; favouring tokens,
 * the SM count and the memory size order the variants left. */
static int find_score(const struct gpu_row *r, char *const *match, const char *nn, uint64_t mem, int sms)
{
	double gib = (double)mem / (1024.0 * 1024 * 1024);
	int score = 0;
	size_t k;

	for (k = 0; match && match[k]; k++)
		if (has_tokens(nn, match[k]))
			return 1000 + (int)strlen(match[k]);	/* the longest name given wins */
	if (!r || !has_tokens(nn, r->model))
		return -1;
	for (k = 0; k < 4 && r->exclude[k]; k++)
		if (has_tokens(nn, r->exclude[k]))
			return -1;
	for (k = 0; k < 4 && r->favour[k]; k++)
		if (has_tokens(nn, r->favour[k]))
			score += 8;
	if (sms > 0 && r->sms > 0)
		score += sms == r->sms ? 4 : -4;
	if (mem > 0)
		score += gib >= r->gib_lo && gib <= r->gib_hi ? 2 : -2;
	return score;
}

/* An empty name (vLLM's traces of MI300X have one): the one device whose
 * compute capability, SM count and memory all fit, if only one does. */
static const struct tl_gpu *find_by_props(const struct tl_gpu_set *set, uint64_t mem, int sms, int ccma, int ccmi)
{
	const struct tl_gpu *hit = NULL, *g;
	const struct gpu_row *r;
	char *const *match;
	double gib = (double)mem / (1024.0 * 1024 * 1024);
	size_t i, nhit = 0;

	if (!mem || sms <= 0)
		return NULL;
	for (i = 0; i < set_count(set); i++) {
		g = set_get(set, i, &r, &match);
		if (!r || r->cc_major != ccma || r->cc_minor != ccmi || r->sms != sms || gib < r->gib_lo ||
		    gib > r->gib_hi)
			continue;
		hit = g;
		nhit++;
	}
	return nhit == 1 ? hit : NULL;
}

const struct tl_gpu *tl_gpu_find(const struct tl_gpu_set *set, const char *name, uint64_t mem_bytes, int sms,
				 int cc_major, int cc_minor)
{
	const struct tl_gpu *best = NULL, *g;
	const struct gpu_row *r;
	char *const *match;
	char nn[256];
	int score, top = -1;
	size_t i;

	norm_name(nn, sizeof(nn), name);
	if (!nn[0]) {
		best = find_by_props(set, mem_bytes, sms, cc_major, cc_minor);
		if (!best) {
			tl_err(-ENOENT, "GPU with no name (%d.%d, %d SMs, %.0f GiB): no single device fits; name one with --gpu-spec",
			       cc_major, cc_minor, sms, (double)mem_bytes / (1024.0 * 1024 * 1024));
			errno = ENOENT;
		}
		return best;
	}
	for (i = 0; i < set_count(set); i++) {
		g = set_get(set, i, &r, &match);
		score = find_score(r, match, nn, mem_bytes, sms);
		if (score > top) {
			top = score;
			best = g;
		}
	}
	if (!best) {
		tl_err(-ENOENT, "GPU '%s': not in the table of peaks; add it with --gpu-spec", name);
		errno = ENOENT;
	}
	return best;
}

const struct tl_gpu *tl_gpu_of_trace(const struct tl_gpu_set *set, const struct tl_trace *tr, int index)
{
	const cJSON *meta = tr ? tl_trace_metadata(tr) : NULL, *props, *dev;
	const cJSON *name, *mem, *sms, *ma, *mi;
	int64_t bytes;

	props = meta ? cJSON_GetObjectItemCaseSensitive(meta, "deviceProperties") : NULL;
	if (!cJSON_IsArray(props) || !cJSON_GetArraySize(props)) {
		tl_err(-ENOENT, "the trace has no deviceProperties");
		errno = ENOENT;
		return NULL;
	}
	dev = cJSON_GetArrayItem(props, index < 0 ? 0 : index);
	if (!cJSON_IsObject(dev)) {
		tl_err(-ENOENT, "the trace has no deviceProperties[%d]", index);
		errno = ENOENT;
		return NULL;
	}
	name = cJSON_GetObjectItemCaseSensitive(dev, "name");
	mem = cJSON_GetObjectItemCaseSensitive(dev, "totalGlobalMem");
	sms = cJSON_GetObjectItemCaseSensitive(dev, "numSms");
	ma = cJSON_GetObjectItemCaseSensitive(dev, "computeMajor");
	mi = cJSON_GetObjectItemCaseSensitive(dev, "computeMinor");
	if (!tl_json_i64(mem, 1, INT64_MAX, &bytes))
		bytes = 0;
	return tl_gpu_find(set, cJSON_IsString(name) ? name->valuestring : "", (uint64_t)bytes,
			   cJSON_IsNumber(sms) ? sms->valueint : 0, cJSON_IsNumber(ma) ? ma->valueint : -1,
			   cJSON_IsNumber(mi) ? mi->valueint : -1);
}

/* ------------------------------------------------------------------ sets */

static void ent_release(struct gpu_ent *e)
{
	size_t k;

	for (k = 0; e->match && e->match[k]; k++)
		free(e->match[k]);
	free(e->match);
	free(e->source);
}

/* Deep copies of what @src owns into @dst (a copy of @src's fields). */
static int ent_copy(struct gpu_ent *dst, const struct gpu_ent *src)
{
	size_t k, n = 0;

	while (src->match && src->match[n])
		n++;
	if (src->match && !(dst->match = calloc(n + 1, sizeof(*dst->match))))
		return tl_err(-ENOMEM, "out of memory");
	for (k = 0; k < n; k++)
		if (!(dst->match[k] = strdup(src->match[k])))
			return tl_err(-ENOMEM, "out of memory");
	if (src->source && !(dst->source = strdup(src->source)))
		return tl_err(-ENOMEM, "out of memory");
	dst->g.source = dst->source ? dst->source : src->row ? src->row->source : "";
	return 0;
}

int tl_gpu_set_new(struct tl_gpu_set **out)
{
	struct tl_gpu_set *set = NULL;
	size_t i;

	if (!out)
		return tl_err(-EINVAL, "tl_gpu_set_new: no output");
	*out = NULL;
	set = calloc(1, sizeof(*set));
	if (!set || !(set->ent = calloc(NBUILTIN, sizeof(*set->ent)))) {
		free(set);
		return tl_err(-ENOMEM, "out of memory");
	}
	for (i = 0; i < NBUILTIN; i++) {
		gpu_of_row(&set->ent[i].g, &builtin[i]);
		set->ent[i].row = &builtin[i];
	}
	set->n = NBUILTIN;
	*out = set;
	return 0;
}

void tl_gpu_set_free(struct tl_gpu_set *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->n; i++)
		ent_release(&set->ent[i]);
	free(set->ent);
	free(set);
}

size_t tl_gpu_set_count(const struct tl_gpu_set *set)
{
	return set_count(set);
}

const struct tl_gpu *tl_gpu_set_at(const struct tl_gpu_set *set, size_t i)
{
	const struct gpu_row *r;
	char *const *match;

	return i < set_count(set) ? set_get(set, i, &r, &match) : NULL;
}

/* ------------------------------------------------------------------ spec files
 *
 * TraceLens's arch files (name, mem_bw_gbps, max_achievable_tflops) work as
 * they are; "peak_tflops" is accepted for max_achievable_tflops, "match"
 * lists the deviceProperties names a new device is for, and {"devices":
 * [...]} holds several. Other top-level keys (memory_gb, gfx_arch, _reference)
 * are TraceLens's free-form notes and are ignored; a key of the peaks that
 * is not a Compute Spec is an error, as a typo there would silently leave
 * a roof out. */

/* The error of a spec file, "FILE: FIELD: why"; returns -EINVAL. */
static int spec_fail(const char *what, const char *field, const char *fmt, ...) TL_PRINTF(3, 4);
static int spec_fail(const char *what, const char *field, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return tl_err(-EINVAL, "%s: %s%s%s", what, field, *field ? ": " : "", why);
}

/* Parse one device object @o (at @field, "devices[2]") into @e. */
static int spec_device(const char *what, const char *field, const cJSON *o, struct gpu_ent *e, bool *given)
{
	const cJSON *name, *bw, *peaks, *match, *src, *it;
	enum tl_gpu_unit u;
	enum tl_gpu_dtype d;
	char f[160], nn[96];
	size_t k = 0;

	if (!cJSON_IsObject(o))
		return spec_fail(what, field, "expected an object");
	name = cJSON_GetObjectItemCaseSensitive(o, "name");
	if (!cJSON_IsString(name) || !name->valuestring[0]) {
		snprintf(f, sizeof(f), "%s%sname", field, *field ? "." : "");
		return spec_fail(what, f, name ? "expected a non-empty string" : "missing");
	}
	snprintf(e->g.name, sizeof(e->g.name), "%s", name->valuestring);
	bw = cJSON_GetObjectItemCaseSensitive(o, "mem_bw_gbps");
	snprintf(f, sizeof(f), "%s%smem_bw_gbps", field, *field ? "." : "");
	if (bw && (!cJSON_IsNumber(bw) || !(bw->valuedouble > 0) || !isfinite(bw->valuedouble)))
		return spec_fail(what, f, "expected a number > 0 (GB/s)");
	e->g.mem_bw = bw ? bw->valuedouble * 1e9 : NAN;
	peaks = cJSON_GetObjectItemCaseSensitive(o, "max_achievable_tflops");
	if (!peaks)
		peaks = cJSON_GetObjectItemCaseSensitive(o, "peak_tflops");
	if (peaks && !cJSON_IsObject(peaks)) {
		snprintf(f, sizeof(f), "%s%s%s", field, *field ? "." : "", peaks->string);
		return spec_fail(what, f, "expected an object of Compute Spec: TFLOP/s");
	}
	cJSON_ArrayForEach(it, peaks) {
		snprintf(f, sizeof(f), "%s%s%s.%s", field, *field ? "." : "", peaks->string, it->string);
		if (tl_gpu_parse_spec(it->string, &u, &d))
			return spec_fail(what, f, "not a Compute Spec (matrix_ or vector_ and one of fp64 fp32 tf32 bf16 fp16 fp8 fp6 fp4 int8 int4)");
		if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0) || !isfinite(it->valuedouble))
			return spec_fail(what, f, "expected a number >= 0 (TFLOP/s)");
		e->g.peak[u][d] = it->valuedouble * 1e12;
		given[u * TL_GPU_NDTYPES + d] = true;
	}
	match = cJSON_GetObjectItemCaseSensitive(o, "match");
	if (match) {
		snprintf(f, sizeof(f), "%s%smatch", field, *field ? "." : "");
		if (!cJSON_IsArray(match))
			return spec_fail(what, f, "expected an array of names");
		e->match = calloc((size_t)cJSON_GetArraySize(match) + 1, sizeof(*e->match));
		if (!e->match)
			return tl_err(-ENOMEM, "out of memory");
		cJSON_ArrayForEach(it, match) {
			if (!cJSON_IsString(it))
				return spec_fail(what, f, "expected an array of names");
			norm_name(nn, sizeof(nn), it->valuestring);
			if (!nn[0])
				return spec_fail(what, f, "a name without letters or digits");
			if (!(e->match[k++] = strdup(nn)))
				return tl_err(-ENOMEM, "out of memory");
		}
	}
	src = cJSON_GetObjectItemCaseSensitive(o, "source");
	if (!src)
		src = cJSON_GetObjectItemCaseSensitive(o, "_reference");
	if (asprintf(&e->source, "%s%s%s", what, cJSON_IsString(src) ? ": " : "",
		     cJSON_IsString(src) ? src->valuestring : "") < 0) {
		e->source = NULL;
		return tl_err(-ENOMEM, "out of memory");
	}
	e->g.source = e->source;
	e->from_file = true;
	return 0;
}

/* Put spec device @e into the new entries @ne (old ones copied first): over
 * the device of the same name (given peaks replace, others stay), or as a
 * new device in front, so that it is tried first. Takes @e's allocations. */
static int spec_merge(const char *what, const char *field, struct gpu_ent **ne, size_t *n, struct gpu_ent *e,
		      const bool *given)
{
	struct gpu_ent *t, *old = NULL;
	size_t i, k;

	for (i = 0; i < *n && !old; i++)
		if (same_name((*ne)[i].g.name, e->g.name))
			old = &(*ne)[i];
	if (old) {
		for (k = 0; k < 2 * TL_GPU_NDTYPES; k++)
			if (given[k])
				old->g.peak[k / TL_GPU_NDTYPES][k % TL_GPU_NDTYPES] = e->g.peak[k / TL_GPU_NDTYPES][k % TL_GPU_NDTYPES];
		if (isfinite(e->g.mem_bw))
			old->g.mem_bw = e->g.mem_bw;
		if (e->match) {
			/* names given add to how it is found */
			if (old->match || !old->row) {
				for (k = 0; old->match && old->match[k]; k++)
					free(old->match[k]);
				free(old->match);
			}
			old->match = e->match;
			e->match = NULL;
		}
		if (old->from_file)
			free(old->source);
		old->source = e->source;
		old->g.source = e->source;
		e->source = NULL;
		old->from_file = true;
		ent_release(e);
		return 0;
	}
	if (!isfinite(e->g.mem_bw))
		return spec_fail(what, field, "'%s' is a new device: mem_bw_gbps is required", e->g.name);
	if (!e->match) {
		/* found by its own name ("MI355X" in "AMD Instinct MI355X") */
		e->match = calloc(2, sizeof(*e->match));
		if (!e->match || !(e->match[0] = malloc(sizeof(e->g.name))))
			return tl_err(-ENOMEM, "out of memory");
		norm_name(e->match[0], sizeof(e->g.name), e->g.name);
	}
	t = realloc(*ne, (*n + 1) * sizeof(**ne));
	if (!t)
		return tl_err(-ENOMEM, "out of memory");
	*ne = t;
	memmove(t + 1, t, *n * sizeof(*t));
	t[0] = *e;
	(*n)++;
	return 0;
}

int tl_gpu_set_load_json(struct tl_gpu_set *set, const char *what, const char *json, size_t len)
{
	struct gpu_ent *ne = NULL, e;
	bool given[2 * TL_GPU_NDTYPES];
	const cJSON *devs, *it;
	cJSON *root = NULL;
	const char *end = NULL;
	char field[48];
	size_t n = 0, i, line = 1, k;
	int ret = 0, idx = 0;

	what = what ? what : "gpu spec";
	if (!set || !json)
		return tl_err(-EINVAL, "%s: no set or no text", what);
	root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
	if (!root) {
		for (k = 0; end && k < (size_t)(end - json) && k < len; k++)
			line += json[k] == '\n';
		ret = spec_fail(what, "", "not JSON (error near line %zu)", line);
		goto out;
	}
	if (!cJSON_IsObject(root)) {
		ret = spec_fail(what, "", "expected an object: one device, or {\"devices\": [...]}");
		goto out;
	}
	devs = cJSON_GetObjectItemCaseSensitive(root, "devices");
	if (devs && !cJSON_IsArray(devs)) {
		ret = spec_fail(what, "devices", "expected an array of devices");
		goto out;
	}
	/* work on a copy, so that an error leaves the set as it was */
	ne = calloc(set->n ? set->n : 1, sizeof(*ne));
	if (!ne) {
		ret = tl_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (n = 0; n < set->n; n++) {
		ne[n] = set->ent[n];
		ne[n].match = NULL;
		ne[n].source = NULL;
		ret = ent_copy(&ne[n], &set->ent[n]);
		if (ret) {
			n++;
			goto out;
		}
	}
	for (it = devs ? devs->child : root; it; it = devs ? it->next : NULL, idx++) {
		memset(&e, 0, sizeof(e));
		memset(given, 0, sizeof(given));
		if (devs)
			snprintf(field, sizeof(field), "devices[%d]", idx);
		else
			field[0] = '\0';
		ret = spec_device(what, field, it, &e, given);
		if (!ret)
			ret = spec_merge(what, field, &ne, &n, &e, given);
		if (ret) {
			ent_release(&e);
			goto out;
		}
	}
	for (i = 0; i < set->n; i++)
		ent_release(&set->ent[i]);
	free(set->ent);
	set->ent = ne;
	set->n = n;
	ne = NULL;
out:
	for (i = 0; ne && i < n; i++)
		ent_release(&ne[i]);
	free(ne);
	cJSON_Delete(root);
	return ret;
}

int tl_gpu_set_load(struct tl_gpu_set *set, const char *path)
{
	char *text;
	size_t len;
	int ret;

	if (!set || !path)
		return tl_err(-EINVAL, "tl_gpu_set_load: no set or no path");
	/* the user's file, gzip or plain, or a pipe (--gpu <(...)) */
	ret = tl_input_read(path, "a GPU spec file", TL_INPUT_PIPE | TL_INPUT_GUNZIP, 0, &text, &len);
	if (ret)
		return ret;
	ret = tl_gpu_set_load_json(set, path, text, len);
	free(text);
	return ret;
}

/* ------------------------------------------------------------------ specs */

const char *tl_gpu_dtype_name(enum tl_gpu_dtype dt)
{
	return dt >= 0 && dt < TL_GPU_NDTYPES ? dtype_names[dt] : "?";
}

const char *tl_gpu_bound_name(enum tl_gpu_bound b)
{
	return b == TL_BOUND_MEMORY ? "memory-bound" : b == TL_BOUND_COMPUTE ? "compute-bound" : "";
}

int tl_gpu_parse_spec(const char *spec, enum tl_gpu_unit *unit, enum tl_gpu_dtype *dtype)
{
	/* TraceLens writes its own short names; the long ones are torch's and
	 * appear where a model passes a dtype through ("vector_bfloat16"). */
	static const struct {
		const char *s;
		enum tl_gpu_dtype d;
	} alias[] = {
		{ "float64", TL_GPU_FP64 }, { "double", TL_GPU_FP64 },	 { "float32", TL_GPU_FP32 },
		{ "float", TL_GPU_FP32 },   { "bfloat16", TL_GPU_BF16 }, { "float16", TL_GPU_FP16 },
		{ "half", TL_GPU_FP16 },    { "xf32", TL_GPU_TF32 },	 { "mxfp4", TL_GPU_FP4 },
		{ "nvfp4", TL_GPU_FP4 },    { "mxfp6", TL_GPU_FP6 },	 { "mxfp8", TL_GPU_FP8 },
		{ "float8", TL_GPU_FP8 },
	};
	enum tl_gpu_unit u = TL_GPU_UNIT_UNKNOWN;
	enum tl_gpu_dtype d = TL_GPU_DT_UNKNOWN;
	const char *t = NULL;
	size_t i;

	if (spec && !strncasecmp(spec, "matrix_", 7)) {
		u = TL_GPU_MATRIX;
		t = spec + 7;
	} else if (spec && !strncasecmp(spec, "vector_", 7)) {
		u = TL_GPU_VECTOR;
		t = spec + 7;
	}
	for (i = 0; t && i < TL_GPU_NDTYPES && d == TL_GPU_DT_UNKNOWN; i++)
		if (!strcasecmp(t, dtype_names[i]))
			d = (enum tl_gpu_dtype)i;
	for (i = 0; t && i < TL_ARRAY_SIZE(alias) && d == TL_GPU_DT_UNKNOWN; i++)
		if (!strcasecmp(t, alias[i].s))
			d = alias[i].d;
	/* float8_e4m3fn, float8_e5m2fnuz, ... */
	if (t && d == TL_GPU_DT_UNKNOWN && !strncasecmp(t, "float8_", 7))
		d = TL_GPU_FP8;
	if (d == TL_GPU_DT_UNKNOWN)
		u = TL_GPU_UNIT_UNKNOWN;
	if (unit)
		*unit = u;
	if (dtype)
		*dtype = d;
	return d == TL_GPU_DT_UNKNOWN ? -EINVAL : 0;
}

double tl_gpu_peak(const struct tl_gpu *gpu, enum tl_gpu_unit unit, enum tl_gpu_dtype dtype,
		   enum tl_gpu_unit *used_unit, enum tl_gpu_dtype *used_dtype)
{
	/* The matrix type a part without @d runs it as: the next wider one
	 * (fp8 weights on an A100 are dequantised to fp16/bf16 for its tensor
	 * cores; fp32 GEMMs on NVIDIA run on the CUDA cores, see below). */
	static const int wider[TL_GPU_NDTYPES] = {
		[TL_GPU_FP64] = -1, [TL_GPU_FP32] = -1,		[TL_GPU_TF32] = TL_GPU_FP32,
		[TL_GPU_BF16] = TL_GPU_FP32, [TL_GPU_FP16] = TL_GPU_FP32, [TL_GPU_FP8] = TL_GPU_FP16,
		[TL_GPU_FP6] = TL_GPU_FP8, [TL_GPU_FP4] = TL_GPU_FP6,	[TL_GPU_INT8] = TL_GPU_FP16,
		[TL_GPU_INT4] = TL_GPU_INT8,
	};
	int d = dtype;
	double p = 0;

	if (used_unit)
		*used_unit = TL_GPU_UNIT_UNKNOWN;
	if (used_dtype)
		*used_dtype = TL_GPU_DT_UNKNOWN;
	if (!gpu || dtype < 0 || dtype >= TL_GPU_NDTYPES || (unit != TL_GPU_MATRIX && unit != TL_GPU_VECTOR))
		return 0;
	if (unit == TL_GPU_MATRIX) {
		while (d >= 0 && !(gpu->peak[TL_GPU_MATRIX][d] > 0))
			d = wider[d];
		if (d >= 0) {
			p = gpu->peak[TL_GPU_MATRIX][d];
		} else {
			/* fp32/fp64 with no matrix unit (fp32 on NVIDIA, where
			 * PyTorch leaves TF32 off for matmuls; fp64 on L40S):
			 * the vector units do the GEMM */
			d = dtype == TL_GPU_FP64 ? TL_GPU_FP64 : TL_GPU_FP32;
			unit = TL_GPU_VECTOR;
			p = gpu->peak[TL_GPU_VECTOR][d];
		}
	} else {
		p = gpu->peak[TL_GPU_VECTOR][d];
		if (!(p > 0) && d != TL_GPU_FP64) {
			d = TL_GPU_FP32;
			p = gpu->peak[TL_GPU_VECTOR][d];
		}
	}
	if (!(p > 0))
		return 0;
	if (used_unit)
		*used_unit = unit;
	if (used_dtype)
		*used_dtype = (enum tl_gpu_dtype)d;
	return p;
}

/* ------------------------------------------------------------------ the roof */

int tl_gpu_roof(const struct tl_gpu *gpu, const char *spec, double flops, double bytes, double time_us,
		struct tl_gpu_roof *out)
{
	enum tl_gpu_unit u;
	enum tl_gpu_dtype d;
	double t = time_us * 1e-6, mem_roof;
	bool have_f, have_b;

	if (!out)
		return tl_err(-EINVAL, "tl_gpu_roof: no output");
	memset(out, 0, sizeof(*out));
	out->flops_per_s = out->bytes_per_s = out->intensity = out->peak_flops = NAN;
	out->ridge = out->roof = out->pct_of_roof = out->pct_of_bw = NAN;
	out->peak_bw = gpu ? gpu->mem_bw : NAN;
	out->unit = TL_GPU_UNIT_UNKNOWN;
	out->dtype = TL_GPU_DT_UNKNOWN;
	if (!gpu || !(t > 0) || !isfinite(t))
		return tl_err(-EINVAL, "tl_gpu_roof: %s", gpu ? "time must be > 0" : "no device");
	have_f = isfinite(flops) && flops > 0;
	have_b = isfinite(bytes) && bytes > 0;
	if (!have_f)
		out->flags |= TL_ROOF_NO_FLOPS;
	if (!have_b)
		out->flags |= TL_ROOF_NO_BYTES;
	if (tl_gpu_parse_spec(spec, &u, &d)) {
		out->flags |= TL_ROOF_SPEC_UNKNOWN;
	} else {
		out->peak_flops = tl_gpu_peak(gpu, u, d, &out->unit, &out->dtype);
		if (!(out->peak_flops > 0)) {
			out->peak_flops = NAN;
			out->flags |= TL_ROOF_NO_PEAK;
		} else if (out->unit != u || out->dtype != d) {
			out->flags |= TL_ROOF_FALLBACK;
		}
	}
	if (!(out->peak_bw > 0))
		out->peak_bw = NAN;
	out->ridge = out->peak_flops / out->peak_bw;	/* NaN propagates */
	if (have_f)
		out->flops_per_s = flops / t;
	if (have_b) {
		out->bytes_per_s = bytes / t;
		out->pct_of_bw = 100 * out->bytes_per_s / out->peak_bw;
	}
	if (have_f && have_b) {
		out->intensity = flops / bytes;
		mem_roof = out->peak_bw * out->intensity;
		/* with no compute peak only the bandwidth roof is known: the
		 * row is judged against it, but its bound is not claimed */
		out->roof = isfinite(out->peak_flops) ? fmin(out->peak_flops, mem_roof) : NAN;
		if (isfinite(out->roof)) {
			out->bound = mem_roof < out->peak_flops ? TL_BOUND_MEMORY : TL_BOUND_COMPUTE;
			out->pct_of_roof = 100 * out->flops_per_s / out->roof;
		}
	} else if (have_f) {
		/* no bytes: no intensity, the compute peak is the only roof */
		out->roof = out->peak_flops;
		out->pct_of_roof = 100 * out->flops_per_s / out->roof;
	} else if (have_b) {
		/* FLOPs 0: data movement, memory-bound by definition, judged on
		 * bandwidth; FLOPs unknown: the bandwidth is all there is */
		out->pct_of_roof = out->pct_of_bw;
		if (flops == 0) {
			out->intensity = 0;
			out->roof = 0;
			out->bound = TL_BOUND_MEMORY;
		}
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Collective types, their bus-bandwidth factors and element sizes: the
 * names PyTorch records ("Collective name", nccl:* annotations, c10d:: ops)
 * and the NCCL/RCCL kernel names, normalised. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>

#include "ranks/ranks_internal.h"

static const char *const type_names[TL_COLL_NTYPES] = {
	[TL_COLL_UNKNOWN] = "unknown",		[TL_COLL_ALLREDUCE] = "allreduce",
	[TL_COLL_ALLGATHER] = "allgather",	[TL_COLL_REDUCESCATTER] = "reducescatter",
	[TL_COLL_ALLTOALL] = "alltoall",	[TL_COLL_ALLTOALLV] = "alltoallv",
	[TL_COLL_BROADCAST] = "broadcast",	[TL_COLL_REDUCE] = "reduce",
	[TL_COLL_GATHER] = "gather",		[TL_COLL_SCATTER] = "scatter",
	[TL_COLL_SENDRECV] = "sendrecv",	[TL_COLL_SEND] = "send",
	[TL_COLL_RECV] = "recv",		[TL_COLL_BARRIER] = "barrier",
};

const char *tl_coll_type_name(enum tl_coll_type type)
{
	if ((unsigned)type >= TL_COLL_NTYPES)
		return "unknown";
	return type_names[type];
}

/* Names lowercased, without '_' and a trailing "_" of c10d ops. */
static const struct {
	const char *norm;
	enum tl_coll_type type;
} norm_names[] = {
	{ "allreduce", TL_COLL_ALLREDUCE },
	{ "allreducecoalesced", TL_COLL_ALLREDUCE },
	{ "allgather", TL_COLL_ALLGATHER },
	{ "allgatherbase", TL_COLL_ALLGATHER },
	{ "allgathercoalesced", TL_COLL_ALLGATHER },
	{ "allgatherintotensor", TL_COLL_ALLGATHER },
	{ "allgatherintotensorcoalesced", TL_COLL_ALLGATHER },
	{ "reducescatter", TL_COLL_REDUCESCATTER },
	{ "reducescatterbase", TL_COLL_REDUCESCATTER },
	{ "reducescattertensor", TL_COLL_REDUCESCATTER },
	{ "reducescattertensorcoalesced", TL_COLL_REDUCESCATTER },
	{ "reducescattercoalesced", TL_COLL_REDUCESCATTER },
	{ "alltoall", TL_COLL_ALLTOALL },
	{ "alltoallbase", TL_COLL_ALLTOALL },
	{ "alltoallsingle", TL_COLL_ALLTOALL },
	{ "alltoallv", TL_COLL_ALLTOALLV },
	{ "broadcast", TL_COLL_BROADCAST },
	{ "broadcastcoalesced", TL_COLL_BROADCAST },
	{ "reduce", TL_COLL_REDUCE },
	{ "gather", TL_COLL_GATHER },
	{ "scatter", TL_COLL_SCATTER },
	{ "sendrecv", TL_COLL_SENDRECV },
	{ "send", TL_COLL_SEND },
	{ "recv", TL_COLL_RECV },
	{ "recvanysource", TL_COLL_RECV },
	{ "barrier", TL_COLL_BARRIER },
};

static bool has_prefix_ci(const char *s, const char *p)
{
	return !strncasecmp(s, p, strlen(p));
}

void tl_coll_kernel_token(const char *kernel, char *buf, size_t n)
{
	static const char *const marks[] = { "ncclDevKernel_", "ncclKernel_", "rcclKernel_",
					     "rcclDevKernel_" };
	const char *p = NULL, *q;
	size_t i, len;

	if (n)
		buf[0] = 0;
	if (n && strstr(kernel, "cross_device_reduce")) {	/* vLLM's custom allreduce, as TraceLens infers it */
		snprintf(buf, n, "allreduce");
		return;
	}
	for (i = 0; i < TL_ARRAY_SIZE(marks) && !p; i++) {
		p = strstr(kernel, marks[i]);
		if (p)
			p += strlen(marks[i]);
	}
	if (!p || !n)
		return;
	for (q = p; *q && *q != '_' && *q != '(' && *q != '<' && *q != ' '; q++)
		;
	len = (size_t)(q - p);
	if (len >= n)
		len = n - 1;
	memcpy(buf, p, len);
	buf[len] = 0;
}

/* NCCL's kernels are named ncclKernel_<Coll>_<ALGO>_<PROTO>_<Op>_<type>
 * (NCCL 2.x up to 2.18) or ncclDevKernel_<Coll>_[<Op>_<type>_]<ALGO>_<PROTO>
 * (2.19+): the algorithm and protocol are '_'-separated upper-case tokens
 * anywhere after the prefix, the two-token algorithms first. */
void tl_coll_kernel_algo(const char *kernel, const char **algo, const char **proto)
{
	static const char *const algos[] = { "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS_TREE", "RING",
					     "TREE", "COLLNET", "NVLS", "PAT" };
	static const char *const protos[] = { "LL128", "LL", "SIMPLE" };
	const char *p = NULL, *end, *t;
	size_t i, k, len;

	*algo = *proto = "";
	if (!kernel || (!(p = strstr(kernel, "cclKernel_")) && !(p = strstr(kernel, "cclDevKernel_"))))
		return;
	p = strchr(p, '_') + 1;
	end = p + strcspn(p, "(< ");
	for (t = p; t < end; t += len + (t[len] == '_')) {
		len = strcspn(t, "_(< ");
		for (i = 0; i < TL_ARRAY_SIZE(algos) && !**algo; i++) {
			k = strlen(algos[i]);
			if (t + k <= end && !strncmp(t, algos[i], k) && (t + k == end || t[k] == '_')) {
				*algo = algos[i];
				len = k;
			}
		}
		for (i = 0; i < TL_ARRAY_SIZE(protos) && !**proto; i++) {
			if (len == strlen(protos[i]) && !strncmp(t, protos[i], len))
				*proto = protos[i];
		}
		if (!len)
			break;
	}
}

enum tl_coll_type tl_coll_type_of(const char *name)
{
	char norm[64], tok[64];
	const char *p;
	size_t i, n = 0;

	if (!name || !*name)
		return TL_COLL_UNKNOWN;
	tl_coll_kernel_token(name, tok, sizeof(tok));
	if (*tok)
		name = tok;
	else if (has_prefix_ci(name, "nccl:"))
		name += 5;
	else if (!strncmp(name, "c10d::", 6))
		name += 6;
	for (p = name; *p && n + 1 < sizeof(norm); p++) {
		if (*p == '_')
			continue;
		if (!isalnum((unsigned char)*p))
			break;
		norm[n++] = (char)tolower((unsigned char)*p);
	}
	norm[n] = 0;
	for (i = 0; i < TL_ARRAY_SIZE(norm_names); i++)
		if (!strcmp(norm, norm_names[i].norm))
			return norm_names[i].type;
	return TL_COLL_UNKNOWN;
}

bool tl_coll_implicit_sync(enum tl_coll_type type)
{
	return type == TL_COLL_ALLREDUCE || type == TL_COLL_ALLGATHER ||
	       type == TL_COLL_REDUCESCATTER || type == TL_COLL_ALLTOALL;
}

double tl_coll_busbw_factor(enum tl_coll_type type, int n)
{
	if (n < 1)
		return NAN;
	switch (type) {
	case TL_COLL_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case TL_COLL_ALLGATHER:
	case TL_COLL_REDUCESCATTER:
	case TL_COLL_ALLTOALL:
	case TL_COLL_ALLTOALLV:
		return (double)(n - 1) / n;
	case TL_COLL_BROADCAST:
	case TL_COLL_REDUCE:
	case TL_COLL_GATHER:
	case TL_COLL_SCATTER:
	case TL_COLL_SENDRECV:
	case TL_COLL_SEND:
	case TL_COLL_RECV:
		return 1.0;
	default:
		return NAN;
	}
}

/* "c10::BFloat16" -> "bfloat16" */
static void dtype_norm(const char *d, char *buf, size_t n)
{
	size_t k = 0;

	if (!strncmp(d, "c10::", 5))
		d += 5;
	for (; *d && k + 1 < n; d++)
		buf[k++] = (char)tolower((unsigned char)*d);
	buf[k] = 0;
}

bool tl_dtype_same(const char *a, const char *b)
{
	char x[48], y[48];

	dtype_norm(a, x, sizeof(x));
	dtype_norm(b, y, sizeof(y));
	return !strcmp(x, y);
}

int tl_dtype_bytes(const char *dtype)
{
	static const struct {
		const char *name;
		int bytes;
	} sizes[] = {
		{ "float", 4 }, { "float32", 4 }, { "double", 8 }, { "float64", 8 },
		{ "half", 2 }, { "float16", 2 }, { "bfloat16", 2 },
		{ "long", 8 }, { "long int", 8 }, { "long long", 8 }, { "int64", 8 },
		{ "int", 4 }, { "int32", 4 }, { "short", 2 }, { "short int", 2 }, { "int16", 2 },
		{ "byte", 1 }, { "uint8", 1 }, { "unsigned char", 1 }, { "char", 1 },
		{ "signed char", 1 }, { "int8", 1 }, { "bool", 1 },
		{ "uint16", 2 }, { "uint32", 4 }, { "uint64", 8 }, { "unsigned int", 4 },
		{ "complexhalf", 4 }, { "complexfloat", 8 }, { "complexdouble", 16 },
	};
	char n[48];
	size_t i;

	if (!dtype)
		return 0;
	dtype_norm(dtype, n, sizeof(n));
	if (!strncmp(n, "float8", 6) || !strncmp(n, "float4", 6))
		return 1;	/* float8_e4m3fn, float8_e5m2, ... (float4 packs two per byte) */
	for (i = 0; i < TL_ARRAY_SIZE(sizes); i++)
		if (!strcmp(n, sizes[i].name))
			return sizes[i].bytes;
	return 0;
}

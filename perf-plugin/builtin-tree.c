/* SPDX-License-Identifier: MIT */
/* tlreplay tree: the call tree under an event, down to its GPU work. */
#include <cjson/cJSON.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/nav.h"

/* ------------------------------------------------------------------ tree */

struct tree_ctx {
	struct common_opts co;
	bool py;
	bool all;
	unsigned long long depth;
	bool depth_set;
};

static int opt_depth(const struct opt *opt, const char *arg, void *obj)
{
	struct tree_ctx *x = obj;

	(void)opt;
	x->depth_set = true;
	return parse_u64(arg, &x->depth) ? 0 : cli_error("tree: bad --depth '%s'", arg);
}

static bool has_gpu_below(struct tl_trace *tr, uint64_t uid)
{
	uint64_t *g = NULL;
	int64_t n = tl_event_gpu_events(tr, uid, &g);

	free(g);
	return n > 0;
}

static void tree_print(FILE *f, struct tl_trace *tr, uint64_t uid, const char *prefix, bool last,
		       unsigned long long depth, const struct tree_ctx *x, bool json)
{
	struct tl_event_info e;
	int64_t c, next;
	char pfx[1024], d[32] = "";

	tl_trace_event(tr, uid, &e);
	if (json) {
		fprintf(f, "{\"uid\":%llu,\"depth\":%llu,\"parent\":%lld,\"cat\":", (unsigned long long)uid,
			depth, (long long)tl_event_parent(tr, uid));
		json_str(f, e.cat);
		fputs(",\"name\":", f);
		json_str(f, e.name);
		if (e.has_dur) {
			char b[64];

			fmt_pyfloat(b, sizeof(b), e.dur);
			fprintf(f, ",\"dur\":%s", b);
		}
		fputs("}\n", f);
	} else {
		if (e.has_dur)
			fmt_us(d, sizeof(d), e.dur);
		fprintf(f, "%s%s%llu %s [%s] %s\n", prefix, depth ? (last ? "└── " : "├── ") : "",
			(unsigned long long)uid, e.name, nav_kind_label(&e), d);
	}
	if (x->depth_set && depth >= x->depth)
		return;
	snprintf(pfx, sizeof(pfx), "%s%s", prefix, depth ? (last ? "    " : "│   ") : "");
	c = tl_event_first_child(tr, uid);
	while (c >= 0 && !x->all && !has_gpu_below(tr, (uint64_t)c))
		c = tl_event_next_sibling(tr, (uint64_t)c);
	while (c >= 0) {
		next = tl_event_next_sibling(tr, (uint64_t)c);
		while (next >= 0 && !x->all && !has_gpu_below(tr, (uint64_t)next))
			next = tl_event_next_sibling(tr, (uint64_t)next);
		tree_print(f, tr, (uint64_t)c, pfx, next < 0, depth + 1, x, json);
		c = next;
	}
}

static const struct opt tree_opts[] = {
	OPT_INCLUDE(opts_nav_json, offsetof(struct tree_ctx, co)),
	OPT_BOOL('a', "all", struct tree_ctx, all, "keep branches that launch no GPU work"),
	OPT_CALLBACK('d', "depth", "N", opt_depth, 0, "stop N levels below the start"),
	OPT_BOOL(0, "python", struct tree_ctx, py, "build the call tree with python_function events"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(tree, tree_opts, "the CPU op -> runtime -> GPU call tree",
	"usage: tlreplay tree [-i TRACE] [-j] [-o FILE] [--all] [-d N] [--python] [UID]\n"
	"\n"
	"Print the call tree below UID (CPU op -> runtime call -> GPU events), or every root\n"
	"of the tree that leads to GPU work (to depth 2 unless -d is given).\n"
	"\n");
/* clang-format on */

static int cmd_tree(int argc, char **argv)
{
	struct tree_ctx x = { 0 };
	struct common_opts *co = &x.co;
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	int rc = 1;

	if (!opts_parse(&tree_cmd, argc, argv, &x, &rc))
		return rc;
	if (cli_check_format("tree", co) || cli_no_sep("tree", co))
		return 1;
	if (argc - optind > 1)
		return cli_error("tree: at most one UID");
	if (nav_load(co, x.py, &tr, &o))
		goto out;
	if (optind < argc) {
		uint64_t uid;

		if (!nav_parse_uid("tree", argv[optind], tr, &uid)) {
			out_close(&o, true);
			goto out;
		}
		tree_print(o.f, tr, uid, "", true, 0, &x, co->json);
	} else {
		/* every root of the host tree that leads to GPU work (or all with --all) */
		uint64_t i, n = tl_trace_nevents(tr), roots = 0;

		if (!x.depth_set) {
			x.depth_set = true;
			x.depth = 2;
		}
		for (i = 0; i < n; i++) {
			if (!tl_event_in_tree(tr, i) || tl_event_parent(tr, i) >= 0)
				continue;
			if (!x.all && !has_gpu_below(tr, i))
				continue;
			tree_print(o.f, tr, i, "", true, 0, &x, co->json);
			roots++;
		}
		if (!co->json && !roots)
			fputs("no call-tree root leads to GPU work (use --all to see every root)\n", o.f);
	}
	rc = out_close(&o, false);
out:
	tl_trace_close(tr);
	return rc;
}

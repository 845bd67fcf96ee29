/* SPDX-License-Identifier: MIT */
/* tlreplay pack: IR + a standalone replayer and a README in one zip, for
 * someone who has only Python and torch; with --kdb, a recorded kernel and
 * its C replayer. */
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "replay/ir-select.h"
#include "replay/kpack.h"
#include "replay/pack-check.h"
#include "util/zip-writer.h"

#define CO offsetof(struct ir_opts, co)
#define RO offsetof(struct ir_opts, ro)

static char *pretty_text(const cJSON *v, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	json_pretty(f, v);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Name of the folder inside the zip: the archive's name without ".zip". */
static void pack_dir(const char *zip_path, char *dir, size_t n)
{
	char *copy = strdup(zip_path), *b, *dot;

	snprintf(dir, n, "tlreplay-pack");
	if (!copy)
		return;
	b = basename(copy);
	dot = strrchr(b, '.');
	if (dot && !strcmp(dot, ".zip"))
		*dot = 0;
	if (*b && strcmp(b, ".") && strcmp(b, ".."))
		snprintf(dir, n, "%s", b);
	free(copy);
}

static char *pack_readme(struct tl_trace *tr, const cJSON *list, const struct ir_opts *o, const struct pack_check *pc,
			 const char *dir)
{
	const char *dev = o->ro.device ? o->ro.device : "cpu";
	const cJSON *e;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "# %s: ops of a PyTorch trace, to replay alone\n\n", dir);
	fprintf(f, "Made by tlreplay %s from `%s`.\n\n", tl_version(), tl_trace_path(tr));
	fputs("What is here:\n\n"
	      "- `ir.json`: the ops as replay IR (TraceLens's format plus tlreplay's keys:\n"
	      "  uid, schema, overload, trace_dur_us, gpu_time_us, kernels, source).\n"
	      "- `replay.py`: a replayer that needs only Python >= 3.8 and torch >= 1.13.\n", f);
	if (o->ro.nplugins)
		fputs("- `plugins/`: the custom initializers the ops were packed with.\n", f);
	fputs("\nReplay every op on the CPU, then on the first GPU:\n\n```sh\n", f);
	fputs("python3 replay.py replay ir.json", f);
	for (i = 0; i < o->ro.nplugins; i++) {
		char *copy = strdup(o->ro.plugins[i]);

		fprintf(f, " --init-plugin plugins/%s", copy ? basename(copy) : "?");
		free(copy);
	}
	fputs("\npython3 replay.py replay ir.json --device cuda --kernels\n```\n\n", f);
	fputs("Useful options: `-r N` timed calls per op, `--warmup N`, `--op-filter SUBSTR`,\n"
	      "`--op-limit N`, `-j` for one JSON object per op, `-v` for the arguments and\n"
	      "tracebacks, `--flush-l2` and `--cuda-graph` on a GPU. `python3 replay.py replay -h`\n"
	      "lists them all. With tlreplay installed, `tlreplay replay ir.json` does the same.\n\n", f);
	if (pc->w)
		fprintf(f,
			"Each op was replayed once on `%s` with torch %s where this was packed%s;\n"
			"the table says whether it ran.\n\n",
			dev, pc->torch, pc->explicit_uids ? "" : ",\nand only ops that ran were packed");
	else
		fprintf(f, "Whether these ops run on `%s` was not checked: %s.\n\n", dev, pc->unchecked);
	fputs("| # | op | UID | trace GPU time (us) |", f);
	if (pc->w)
		fprintf(f, " runs on %s |", dev);
	fputs("\n|---|----|-----|----|", f);
	fputs(pc->w ? "----|\n" : "\n", f);
	i = 0;
	cJSON_ArrayForEach(e, list) {
		const cJSON *op = cJSON_GetObjectItemCaseSensitive(e, "op_name");
		const cJSON *uid = cJSON_GetObjectItemCaseSensitive(e, "uid");
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(e, "gpu_time_us");
		const char *verdict = cJSON_IsNumber(uid) ? pack_check_verdict(pc, uid->valuedouble) : NULL;

		fprintf(f, "| %zu | `%s` | %.0f | ", i++, cJSON_IsString(op) ? op->valuestring : "?",
			cJSON_IsNumber(uid) ? uid->valuedouble : -1.0);
		if (cJSON_IsNumber(g))
			fprintf(f, "%.3f |", g->valuedouble);
		else
			fputs("- |", f);
		if (pc->w) {
			/* a reason is one line; a '|' in it would end the cell */
			fputc(' ', f);
			for (; verdict && *verdict; verdict++)
				fputs(*verdict == '|' ? "\\|" : (char[]){ *verdict, 0 }, f);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int pack_write(struct zipw *z, const char *dir, const char *name, const void *data,
		      size_t len, unsigned mode)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return zipw_add(z, path, data, len, mode);
}

/* The worker's package (the .py files of tlreplay_replay/ beside the entry script): the
 * entry script imports it from its own folder, so replay.py needs it beside
 * itself in the zip. Returns 0 or -errno; when a file of the package cannot
 * be read (or there is none), *what names it (static storage), else it stays
 * as it was and the error is the zip's. With no zip, only checks that the
 * package is there. */
static int pack_package(struct zipw *z, const char *dir, const char *script_path, const char **what)
{
	static char pattern[1024];
	char *copy = strdup(script_path);
	glob_t g = { 0 };
	size_t i;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	snprintf(pattern, sizeof(pattern), "%s/tlreplay_replay/*.py", dirname(copy));
	if (glob(pattern, 0, NULL, &g)) {
		*what = pattern;
		err = -ENOENT;
		goto out;
	}
	for (i = 0; z && !err && i < g.gl_pathc; i++) {
		size_t len = 0;
		char *data = cli_read_file(g.gl_pathv[i], "a replay script", 0, &len), name[300];
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;

		if (!data) {
			err = errno ? -errno : -ENOMEM;
			snprintf(pattern, sizeof(pattern), "%s", g.gl_pathv[i]);
			*what = pattern;
			break;
		}
		snprintf(name, sizeof(name), "tlreplay_replay/%s", base);
		err = pack_write(z, dir, name, data, len, 0644);
		free(data);
	}
out:
	globfree(&g);
	free(copy);
	return err;
}

static const struct opt pack_opts[] = {
	OPT_USE(opts_trace_input, CO, "input", TRACE_INPUT_HELP_BRIEF),
	OPT_USE_AS(opts_output_format, CO, "output", "FILE.zip", "the archive to write (atomically)", 0),
	OPT_HELP(),
	OPT_USE(opts_trace_input, CO, "capture", NULL),
	OPT_USE(opts_replay, RO, "init-plugin", "an initializer to ship with the ops (repeatable)"),
	OPT_USE(opts_replay, RO, "device",
		"where the ops must run: each is replayed once on DEV here\n"
		"first, and a selection takes only ops that ran (default cpu)"),
	OPT_BOOL(0, "no-check", struct ir_opts, no_check, "pack the ops without replaying them here first"),
	OPT_STRING(0, "kdb", "DB", struct ir_opts, kdb,
		   "pack recorded kernel launches (tlreplay record) with a\n"
		   "standalone C replayer instead of ops"),
	OPT_STRING(0, "launch", "N", struct ir_opts, launch, "with --kdb: launch N only (default: every one)"),
	OPT_INCLUDE(ir_pack_select_opts, 0),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(pack, pack_opts, "zip ops with a standalone replayer and a README",
	"usage: tlreplay pack -o FILE.zip [-i TRACE] [selection] UID...\n"
	"       tlreplay pack -o FILE.zip --kdb DB [--launch N]\n"
	"\n"
	"Pack ops into one zip for someone with only Python and torch: ir.json, replay.py\n"
	"(python3 replay.py replay ir.json) and a README. The ops are chosen as for\n"
	"`tlreplay ir`, then each is replayed once here on --device (the CPU by default):\n"
	"a selection (--top, --launchers, --filter) packs only ops that ran, going down\n"
	"its ranking; UIDs are packed as asked. The initializers given with\n"
	"--init-plugin travel in plugins/.\n"
	"With --kdb: recorded kernel launches, their data and a C replayer (make &&\n"
	"./replay launch-0.txt) for any machine with a CUDA driver.\n"
	"\n");
/* clang-format on */

static int cmd_pack(int argc, char **argv)
{
	struct ir_opts o = { 0 };
	struct tl_trace *tr = NULL;
	struct out_fmt out = { 0 };
	struct zipw *z = NULL;
	struct ir_tally t;
	struct pack_check pc = { 0 };
	struct tl_worker *w = NULL;
	char why_not[256] = "";
	cJSON *list = NULL;
	char *irtxt = NULL, *readme = NULL, *script = NULL, dir[256];
	const char *script_path, *pkg_what = NULL;
	size_t script_len = 0, irlen = 0, i;
	int rc = 1, err;

	replay_opts_init(&o.ro);
	if (!opts_parse(&pack_cmd, argc, argv, &o, &rc) || ir_check_opts(argc, argv, &pack_cmd, &o))
		return rc;
	if (!o.co.output)
		return cli_error("pack: where to? usage: tlreplay pack -o FILE.zip UID...");
	if (o.launch && !o.kdb)
		return cli_error("pack: --launch picks a launch of --kdb DB");
	if (o.kdb) {
		if (o.sel.nuids || o.sel.launchers || o.sel.filter || o.sel.top || o.co.input || o.ro.nplugins ||
		    o.no_check)
			return cli_error("pack: --kdb packs recorded kernels; ops (UIDs, -i, a selection, "
					 "--init-plugin, --no-check) go in another pack");
		pack_dir(o.co.output, dir, sizeof(dir));
		return kpack_write(o.co.output, dir, o.kdb, o.launch);
	}
	if (!o.sel.nuids && !o.sel.launchers && !o.sel.filter && !o.sel.top)
		return cli_error("pack: which ops? give UIDs, --filter REGEX, --top N or --launchers");
	script_path = tl_worker_script_path(NULL);
	if (!script_path)
		return cli_error("pack: the replay script (tlreplay_worker.py) is not installed beside "
				 "tlreplay; set TLREPLAY_WORKER");
	script = cli_read_file(script_path, "a replay script", 0, &script_len);
	if (!script)
		return cli_error("pack: %s: %s", script_path, strerror(errno));
	if (pack_package(NULL, NULL, script_path, &pkg_what)) {
		free(script);
		return cli_error("pack: %s: no such files: the replay script %s needs its package beside it",
				 pkg_what, script_path);
	}
	/* before the probes take their time: a path that cannot be written */
	if (cli_check_output(o.co.output) || cli_open_trace(&o.co, &tr))
		goto out;
	/* one worker gives the live schemas and checks that the ops run */
	if (o.no_check || o.sel.no_torch) {
		snprintf(why_not, sizeof(why_not), "packed with %s", o.no_check ? "--no-check" : "--no-torch");
	} else {
		struct tl_worker_opts wo = { .sz = sizeof(wo), .python = o.ro.python, .verbose = o.ro.verbose };

		if (replay_worker_start(&wo, &w)) {
			snprintf(why_not, sizeof(why_not), "%s", tl_last_error());
			fprintf(stderr,
				"tlreplay: pack: note: %s; matching schemas against the bundled "
				"snapshot, and not checking that the ops run\n",
				why_not);
			o.sel.no_torch = !o.ro.schemas;
		} else if (tl_worker_check_device(w, o.ro.device)) {
			/* the device is elsewhere; this torch's schemas still count */
			snprintf(why_not, sizeof(why_not), "%s", tl_last_error());
			fprintf(stderr, "tlreplay: pack: note: not checking that the ops run: %s\n", why_not);
		}
	}
	if (pack_check_init(&pc, &o.ro, why_not[0] ? NULL : w, o.sel.nuids > 0, why_not)) {
		rc = cli_error("out of memory writing the pack");
		goto out;
	}
	if (pc.w) {
		o.sel.runs = pack_check_runs;
		o.sel.runs_ctx = &pc;
	}
	if (ir_build_list(tr, &o.sel, &o.ro, &w, "pack", &list, &t))
		goto out;
	t.runnable_where = pc.where;
	if (!t.written && t.not_runnable) {
		rc = cli_error("pack: none of the %zu selected ops of %s runs %s (each is named above); "
			       "--no-check packs them anyway",
			       t.not_runnable, tl_trace_path(tr), pc.where);
		goto out;
	}
	if (!t.written) {
		rc = cli_error("pack: none of the %zu selected ops of %s could be extracted: %s",
			       t.candidates, tl_trace_path(tr), t.first_reason);
		goto out;
	}
	pack_dir(o.co.output, dir, sizeof(dir));
	irtxt = pretty_text(list, &irlen);
	readme = pack_readme(tr, list, &o, &pc, dir);
	if (!irtxt || !readme) {
		rc = cli_error("out of memory writing the pack");
		goto out;
	}
	if (out_open(&out, o.co.output))
		goto out;
	z = zipw_new(out.f);
	err = z ? 0 : -ENOMEM;
	if (!err)
		err = pack_write(z, dir, "README.md", readme, strlen(readme), 0644);
	if (!err)
		err = pack_write(z, dir, "ir.json", irtxt, irlen, 0644);
	if (!err)
		err = pack_write(z, dir, "replay.py", script, script_len, 0755);
	if (!err)
		err = pack_package(z, dir, script_path, &pkg_what);
	for (i = 0; !err && i < o.ro.nplugins; i++) {
		size_t plen = 0;
		char *p = cli_read_file(o.ro.plugins[i], "a plugin", 0, &plen), *copy = strdup(o.ro.plugins[i]),
		     name[300];

		if (!p || !copy) {
			err = errno ? -errno : -ENOMEM;
		} else {
			snprintf(name, sizeof(name), "plugins/%s", basename(copy));
			err = pack_write(z, dir, name, p, plen, 0644);
		}
		free(p);
		free(copy);
	}
	if (!err) {
		err = zipw_finish(z);
		z = NULL;
	}
	if (err) {
		zipw_abort(z);
		out_close(&out, true);
		rc = cli_error("pack: %s: %s", pkg_what ? pkg_what : o.co.output, strerror(-err));
		goto out;
	}
	rc = out_close(&out, false);
	if (!rc)
		ir_tally_print("pack", &t, o.co.output);
out:
	free(irtxt);
	free(readme);
	free(script);
	cJSON_Delete(list);
	pack_check_done(&pc);
	replay_worker_stop(w);
	tl_trace_close(tr);
	return rc;
}

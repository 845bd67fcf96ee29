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

static char *pack_readme(struct tl_trace *tr, const cJSON *list, const struct ir_opts *o,
			 const char *dir)
{
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
	fputs("| # | op | UID | trace GPU time (us) |\n|---|----|-----|----|\n", f);
	i = 0;
	cJSON_ArrayForEach(e, list) {
		const cJSON *op = cJSON_GetObjectItemCaseSensitive(e, "op_name");
		const cJSON *uid = cJSON_GetObjectItemCaseSensitive(e, "uid");
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(e, "gpu_time_us");

		fprintf(f, "| %zu | `%s` | %.0f | ", i++, cJSON_IsString(op) ? op->valuestring : "?",
			cJSON_IsNumber(uid) ? uid->valuedouble : -1.0);
		if (cJSON_IsNumber(g))
			fprintf(f, "%.3f |\n", g->valuedouble);
		else
			fputs("- |\n", f);
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
	"`tlreplay ir`; the initializers given with --init-plugin travel in plugins/.\n"
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
		if (o.sel.nuids || o.sel.launchers || o.sel.filter || o.sel.top || o.co.input || o.ro.nplugins)
			return cli_error("pack: --kdb packs recorded kernels; ops (UIDs, -i, a selection, "
					 "--init-plugin) go in another pack");
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
	if (cli_open_trace(&o.co, &tr))
		goto out;
	if (ir_build_list(tr, &o.sel, &o.ro, NULL, "pack", &list, &t))
		goto out;
	if (!t.written) {
		rc = cli_error("pack: none of the %zu selected ops of %s could be extracted: %s",
			       t.candidates, tl_trace_path(tr), t.first_reason);
		goto out;
	}
	pack_dir(o.co.output, dir, sizeof(dir));
	irtxt = pretty_text(list, &irlen);
	readme = pack_readme(tr, list, &o, dir);
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
	tl_trace_close(tr);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* tlreplay record: run a CUDA program under the kernel recorder
 * (libtlreplay-record.so through LD_PRELOAD) and keep the selected launches
 * in a database that `tlreplay kreplay` replays (docs/kernel-replay.md). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <tlreplay/kreplay.h>
#include <tlreplay/store.h>
#include <tlreplay/tree.h>

#include "builtin.h"
#include "util/child-signals.h"

struct record_opts {
	struct common_opts co;		/* -i only */
	const char *kernel, *output, *uid, *arena;
	unsigned long long nth, count;
	bool args_only, nth_set, kill_with_parent;
};

static int opt_nth(const struct opt *opt, const char *arg, void *obj)
{
	struct record_opts *o = obj;
	char *end;

	(void)opt;
	errno = 0;
	o->nth = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-')
		return cli_error("record: bad --nth '%s' (a launch count from 0)", arg);
	o->nth_set = true;
	return 0;
}

/* A number with an optional binary suffix (K, M, G, T): false when it is
 * not one or does not fit 64 bits. */
static bool size_of_text(const char *s, const char **end, unsigned long long *v)
{
	static const char units[] = "KMGT";
	const char *u;
	char *e;

	errno = 0;
	*v = strtoull(s, &e, 0);
	if (errno || e == s || *s == '-')
		return false;
	if (*e && (u = strchr(units, toupper((unsigned char)*e)))) {
		unsigned shift = 10 * (unsigned)(u - units + 1);

		if (*v >> (64 - shift))
			return false;
		*v <<= shift;
		e++;
	}
	*end = e;
	return true;
}

/* --arena off | BASE[:SIZE]: whole, nonzero, not wrapping (the recorder
 * checks the driver's granularity when it starts) */
static int opt_arena(const struct opt *opt, const char *arg, void *obj)
{
	struct record_opts *o = obj;
	unsigned long long base = 0, size = 1;
	const char *end = arg;

	(void)opt;
	if (strcmp(arg, "off") &&
	    (!size_of_text(arg, &end, &base) || !base ||
	     (*end == ':' && (!size_of_text(end + 1, &end, &size) || !size)) || *end || base + size < base))
		return cli_error("record: bad --arena '%s' (BASE[:SIZE], e.g. 0x200000000000:1T, or off)", arg);
	o->arena = arg;
	return 0;
}

static const struct opt record_opts_table[] = {
	OPT_STRING('k', "kernel", "REGEX", struct record_opts, kernel,
		   "record launches of kernels whose name (demangled or\n"
		   "mangled) matches REGEX (POSIX extended), or is REGEX\n"
		   "when it is not one (a demangled name with parentheses)"),
	OPT_USE(opts_trace_input, offsetof(struct record_opts, co), "input",
		"with --uid: the trace that names the kernel"),
	OPT_STRING(0, "uid", "UID", struct record_opts, uid,
		   "record the kernel that event UID of the trace is, or the\n"
		   "first one it launched; --nth defaults to the trace's count\n"
		   "of that kernel before it"),
	OPT_CALLBACK(0, "nth", "N", opt_nth, 0, "skip the first N matching launches (default 0)"),
	OPT_U64(0, "count", "M", struct record_opts, count, "record M matching launches (default 1; 0: all)"),
	OPT_BOOL(0, "kill-with-parent", struct record_opts, kill_with_parent,
		 "end COMMAND with SIGTERM when tlreplay ends (killed,\n"
		 "SIGTERM, SIGHUP); by default the program is yours and\n"
		 "runs on"),
	OPT_BOOL(0, "args-only", struct record_opts, args_only,
		 "save only the allocations reachable from the arguments\n"
		 "(pointers in them and in the memory they point to),\n"
		 "not every live one"),
	OPT_CALLBACK(0, "arena", "BASE[:SIZE]", opt_arena, 0,
		     "serve the program's device memory from SIZE bytes of\n"
		     "addresses at BASE (default 0x200000000000:1T), which\n"
		     "kreplay reserves in a fresh process; off: where the\n"
		     "driver puts it"),
	OPT_STRING('o', "output", "DB", struct record_opts, output,
		   "the database directory (default tlreplay.kdb; launches\n"
		   "recorded into an existing one are added to it)"),
	OPT_HELP(),
	OPT_END(),
};

TL_CMD_RUNS(record, record_opts_table, "run a CUDA program and record kernel launches for kreplay",
	    "usage: tlreplay record (-k REGEX | -i TRACE --uid UID) [--nth N] [--count M]\n"
	    "                       [--args-only] [--arena BASE[:SIZE]|off] [-o DB] [--] COMMAND [ARGS...]\n"
	    "\n"
	    "Run COMMAND with the kernel recorder preloaded. At each selected launch it\n"
	    "synchronises the device, saves the kernel's module image, its launch\n"
	    "configuration and argument buffer, and every live device allocation, lets the\n"
	    "launch run, and saves the memory the kernel changed. Other launches are left\n"
	    "alone: the program computes what it computes without the recorder.\n"
	    "`tlreplay kreplay DB` replays the recorded launches.\n"
	    "\n");

/* The recorder library: $TLREPLAY_RECORD_LIB, else beside this tlreplay
 * (build tree, bundle) or in its ../lib/tlreplay (install); absolute, since
 * the program may change directory before the loader reads LD_PRELOAD. */
static const char *recorder_path(void)
{
	static const char *const rel[] = { "libtlreplay-record.so", "../lib/tlreplay/libtlreplay-record.so",
					   "../lib/libtlreplay-record.so" };
	static char abs[PATH_MAX];
	const char *env = getenv("TLREPLAY_RECORD_LIB"), *p;

	if (env && *env)
		return access(env, R_OK) ? NULL : env;
	p = cli_beside_exe(rel, TL_ARRAY_N(rel));
	return p && realpath(p, abs) ? abs : NULL;
}

/* --uid: the kernel event of UID (itself, or the first kernel it launched),
 * its name, and how many launches of that name come before it in the trace. */
static int kernel_of_uid(const char *trace, const char *uid_s, char **name, unsigned long long *ordinal,
			 cJSON **source)
{
	struct tl_trace *tr = NULL;
	struct tl_event_info ev, e;
	uint64_t *gpu = NULL, uid, k = 0, i, n;
	int64_t ng = 0;
	cJSON *id = NULL;
	char *end;
	int rc = 1;

	errno = 0;
	uid = strtoull(uid_s, &end, 10);
	if (errno || end == uid_s || *end || *uid_s == '-')
		return cli_error("record: bad --uid '%s' (an event's index in traceEvents)", uid_s);
	if (cli_load(trace, &tr))
		goto out;
	if (tl_trace_event(tr, uid, &ev)) {
		rc = cli_error("record: %s has no event with UID %llu (it has %llu)", cli_base(trace),
			       (unsigned long long)uid, (unsigned long long)tl_trace_nevents(tr));
		goto out;
	}
	if (ev.kind != TL_KIND_KERNEL) {
		const char *op = ev.name;

		if ((rc = tl_trace_link(tr, NULL))) {
			rc = cli_lib_error(rc);
			goto out;
		}
		rc = 1;
		ng = tl_event_gpu_events(tr, uid, &gpu);
		for (i = 0; ng > 0 && i < (uint64_t)ng; i++)
			if (!tl_trace_event(tr, gpu[i], &e) && e.kind == TL_KIND_KERNEL)
				break;
		if (ng <= 0 || i == (uint64_t)ng) {
			cli_error("record: event %llu (%s) launched no kernel", (unsigned long long)uid, ev.name);
			goto out;
		}
		k = gpu[i];
		tl_trace_event(tr, k, &ev);
		fprintf(stderr, "tlreplay: UID %llu (%s) launched kernel UID %llu\n", (unsigned long long)uid, op,
			(unsigned long long)k);
	} else {
		k = uid;
	}
	*ordinal = 0;
	n = tl_trace_nevents(tr);
	for (i = 0; i < n; i++)
		if (i != k && !tl_trace_event(tr, i, &e) && e.kind == TL_KIND_KERNEL && !strcmp(e.name, ev.name) &&
		    (e.ts < ev.ts || (e.ts == ev.ts && i < k)))
			(*ordinal)++;
	*name = strdup(ev.name);
	*source = cJSON_CreateObject();
	if (!*name || !*source)
		goto out;
	if (!tl_store_trace_id(trace, &id))
		cJSON_AddItemToObject(*source, "trace", id);
	cJSON_AddNumberToObject(*source, "uid", (double)k);
	if (k != uid)
		cJSON_AddNumberToObject(*source, "op_uid", (double)uid);
	if (ev.has_dur)
		cJSON_AddNumberToObject(*source, "trace_us", ev.dur);
	cJSON_AddNumberToObject(*source, "trace_ordinal", (double)*ordinal);
	rc = 0;
out:
	free(gpu);
	tl_trace_close(tr);
	return rc;
}

/* child_signals' view of the program's pid */
static pid_t pid_of_var(const void *pid)
{
	return *(const pid_t *)pid;
}

static int set_env(const char *key, const char *val)
{
	return val ? setenv(key, val, 1) : unsetenv(key);
}

/* The child: the recorder first in LD_PRELOAD, the selection in the
 * environment, then COMMAND. */
static void run_child(const char *lib, const char *db, const struct record_opts *o, const char *name,
		      unsigned long long nth, pid_t parent, char **argv)
{
	const char *pre = getenv("LD_PRELOAD");
	char *preload = NULL, num[2][32];

	/* --kill-with-parent: SIGTERM when tlreplay's main thread ends, however it
	 * ends; getppid() catches a parent that died before the prctl */
	if (o->kill_with_parent && (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent))
		_exit(127);

	if (asprintf(&preload, "%s%s%s", lib, pre && *pre ? ":" : "", pre ? pre : "") < 0)
		_exit(127);
	snprintf(num[0], sizeof(num[0]), "%llu", nth);
	snprintf(num[1], sizeof(num[1]), "%llu", o->count);
	if (setenv("LD_PRELOAD", preload, 1) || setenv("TLREPLAY_RECORD_DB", db, 1) ||
	    set_env("TLREPLAY_RECORD_KERNEL", o->kernel) || set_env("TLREPLAY_RECORD_NAME", name) ||
	    setenv("TLREPLAY_RECORD_NTH", num[0], 1) || setenv("TLREPLAY_RECORD_COUNT", num[1], 1) ||
	    set_env("TLREPLAY_RECORD_ARGS_ONLY", o->args_only ? "1" : NULL) ||
	    (o->arena && setenv("TLREPLAY_RECORD_ARENA", o->arena, 1)))
		_exit(127);
	execvp(argv[0], argv);
	fprintf(stderr, "tlreplay: record: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .count = 1 };
	const char *lib, *trace = NULL, *out_dir;
	char *name = NULL, db[PATH_MAX];
	unsigned long long nth = 0;
	cJSON *source = NULL, *cmd = NULL;
	size_t added = 0;
	int rc = 1, status = 0, err, i;
	pid_t pid, parent;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;

	if (!opts_parse(&record_cmd, argc, argv, &o, &rc))
		goto out;
	if (optind >= argc) {
		rc = cli_error("record: which program? usage: tlreplay record -k REGEX -- COMMAND [ARGS...]");
		goto out;
	}
	if (!o.kernel == !o.uid) {
		rc = cli_error("record: give one of --kernel REGEX and --uid UID (with -i TRACE)");
		goto out;
	}
	if (o.kernel && !*o.kernel) {
		rc = cli_error("record: bad --kernel '' (a pattern of kernel names)");
		goto out;
	}
	if (o.co.input && !o.uid) {
		rc = cli_error("record: -i names the trace of --uid; with --kernel it has no use");
		goto out;
	}
	if (o.uid) {
		if (!(trace = cli_trace_path(o.co.input)) || kernel_of_uid(trace, o.uid, &name, &nth, &source))
			goto out;
		if (o.nth_set)
			nth = o.nth;
		fprintf(stderr, "tlreplay: recording launch %llu of %s\n", nth, name);
	} else {
		nth = o.nth;
	}
	if (!(lib = recorder_path())) {
		rc = cli_error("record: libtlreplay-record.so not found beside tlreplay (or $TLREPLAY_RECORD_LIB)");
		goto out;
	}
	out_dir = o.output ? o.output : "tlreplay.kdb";
	if (tl_output_mkdirs(out_dir)) {
		rc = cli_error("record: %s", tl_last_error());
		goto out;
	}
	if (!realpath(out_dir, db)) {
		rc = cli_error("record: %s: %s", out_dir, strerror(errno));
		goto out;
	}
	if (!source && !(source = cJSON_CreateObject()))
		goto out;
	cmd = cJSON_AddArrayToObject(source, "command");
	for (i = optind; cmd && i < argc; i++)
		cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		rc = cli_error("record: fork: %s", strerror(errno));
		goto out;
	}
	if (!pid)
		run_child(lib, db, &o, name, nth, parent, argv + optind);
	if (o.kill_with_parent)
		(void)child_signals_add(&pid, pid_of_var);
	/* ^C goes to the program; we gather what it recorded */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	child_signals_del(&pid);
	err = tl_kdb_gather(db, source, &added);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (WIFSIGNALED(status))
		fprintf(stderr, "tlreplay: record: %s was killed by signal %d\n", argv[optind], WTERMSIG(status));
	else if (WEXITSTATUS(status))
		fprintf(stderr, "tlreplay: record: %s exited with status %d\n", argv[optind], WEXITSTATUS(status));
	if (!added) {
		rc = cli_error("record: no launch was recorded (no launch of %s%s%s after %llu matching ones)",
			       o.kernel ? "a kernel matching '" : "", o.kernel ? o.kernel : name, o.kernel ? "'" : "",
			       nth);
		goto out;
	}
	fprintf(stderr, "tlreplay: %zu launch%s recorded into %s\n", added, added == 1 ? "" : "es", out_dir);
	rc = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
out:
	free(name);
	cJSON_Delete(source);
	return rc;
}

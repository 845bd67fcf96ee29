/* SPDX-License-Identifier: MIT */
/* CPU counters: perf's event-list syntax and names, sysfs PMUs (a fake one
 * under TLREPLAY_SYSFS_ROOT), close-name suggestions, counting software
 * events on this process and on a child (its threads, one started after
 * open), perf's scaling, and every error path (the hardware ones through an
 * injected perf_event_open). Time bounds are loose: CPU time against the
 * process's own getrusage(), within [0.5x, 1.5x]. */
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "counters/counters_internal.h"
#include "tap.h"

#define SPIN_S 0.2		/* CPU seconds a spin command burns */
#define TOUCH_MB 16		/* memory a touch command faults in */

/* ------------------------------------------------------------ helpers */

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void spin(double s)
{
	double t0 = thread_cpu_s();
	volatile unsigned long x = 0;

	while (thread_cpu_s() - t0 < s)
		x++;
}

static double process_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static void touch_memory(void)
{
	size_t len = (size_t)TOUCH_MB << 20, i;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	madvise(p, len, MADV_NOHUGEPAGE);	/* one fault per page, not per 2 MiB */
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	munmap(p, len);
}

/* @name, or @name narrowed to user space (":u") when run unprivileged. */
static bool is(const char *have, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(have, name, n) && (!have[n] || !strcmp(have + n, ":u"));
}

static const struct tl_counter_value *find(const struct tl_counter_value *v, size_t n,
					   const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (is(v[i].name, name))
			return &v[i];
	return NULL;
}

static bool has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

/* Parse @events into @l; 0 or -errno. */
static int parse(const char *events, struct tl_cnt_list *l)
{
	return tl_cnt_parse(events, l);
}

/* ------------------------------------------------------------ the child */

/* A child process: its main thread obeys one-byte commands on a pipe, and
 * a second thread, started at birth, spins when told. */
struct child {
	pid_t pid;
	int cmd, rep;
};

static int worker_cmd[2], worker_rep[2];

static void *worker(void *arg)
{
	char c;

	TL_UNUSED(arg);
	while (read(worker_cmd[0], &c, 1) == 1) {
		spin(SPIN_S);
		if (write(worker_rep[1], "k", 1) != 1)
			break;
	}
	return NULL;
}

static void *spinner(void *arg)
{
	TL_UNUSED(arg);
	spin(SPIN_S);
	return NULL;
}

static void child_loop(int cmd, int rep)
{
	pthread_t w, t;
	double cpu;
	char c;

	if (pipe(worker_cmd) || pipe(worker_rep) || pthread_create(&w, NULL, worker, NULL))
		_exit(2);
	while (read(cmd, &c, 1) == 1) {
		switch (c) {
		case 's': spin(SPIN_S); break;
		case 'm': touch_memory(); break;
		case 'w':
			if (write(worker_cmd[1], "w", 1) != 1 || read(worker_rep[0], &c, 1) != 1)
				_exit(3);
			break;
		case 't':
			if (pthread_create(&t, NULL, spinner, NULL) || pthread_join(t, NULL))
				_exit(4);
			break;
		case 'r':
			cpu = process_cpu_s();
			if (write(rep, &cpu, sizeof(cpu)) != sizeof(cpu))
				_exit(5);
			continue;
		default:
			goto quit;
		}
		if (write(rep, "k", 1) != 1)
			_exit(6);
	}
quit:
	close(worker_cmd[1]);	/* the worker sees EOF and ends */
	pthread_join(w, NULL);
	_exit(0);
}

static bool child_start(struct child *ch)
{
	int a[2], b[2];

	if (pipe(a) || pipe(b))
		return false;
	ch->pid = fork();
	if (ch->pid == 0) {
		close(a[1]);
		close(b[0]);
		child_loop(a[0], b[1]);
	}
	close(a[0]);
	close(b[1]);
	ch->cmd = a[1];
	ch->rep = b[0];
	return ch->pid > 0;
}

/* Send one command and wait until it is done. */
static bool child_do(struct child *ch, char c)
{
	char k;

	return write(ch->cmd, &c, 1) == 1 && read(ch->rep, &k, 1) == 1;
}

static double child_cpu(struct child *ch)
{
	double cpu = -1;

	if (write(ch->cmd, "r", 1) != 1 || read(ch->rep, &cpu, sizeof(cpu)) != sizeof(cpu))
		return -1;
	return cpu;
}

static void child_stop(struct child *ch)
{
	int st;

	if (write(ch->cmd, "q", 1) != 1)
		kill(ch->pid, SIGKILL);
	close(ch->cmd);
	close(ch->rep);
	waitpid(ch->pid, &st, 0);
}

/* The thread of @pid that is not its main thread (0 if none). */
static pid_t other_thread(pid_t pid)
{
	pid_t *tids = NULL, other = 0;
	size_t n = 0, i;

	if (tl_cnt_threads(pid, &tids, &n))
		return 0;
	for (i = 0; i < n; i++)
		if (tids[i] != pid)
			other = tids[i];
	free(tids);
	return other;
}

/* ------------------------------------------------------------ injection */

enum inject {
	INJ_NONE,
	INJ_ENOENT_FAULTS,	/* page-faults: the PMU lacks it */
	INJ_GROUP_EINVAL,	/* page-faults opens alone, not in a group */
	INJ_NO_GROUP_FORMAT,	/* the kernel refuses PERF_FORMAT_GROUP (with inherit) */
	INJ_EACCES,
	INJ_EMFILE,
	INJ_ESRCH_TID,		/* thread inj_tid is gone */
};

static enum inject inj;
static pid_t inj_tid;
static int inj_group_format_seen;

static int injected_open(struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
			 unsigned long flags)
{
	bool faults = a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_PAGE_FAULTS;
	int err = 0;

	if (a->read_format & PERF_FORMAT_GROUP)
		inj_group_format_seen++;
	if (inj == INJ_ENOENT_FAULTS && faults)
		err = ENOENT;
	else if (inj == INJ_GROUP_EINVAL && faults && group_fd >= 0)
		err = EINVAL;
	else if (inj == INJ_NO_GROUP_FORMAT && (a->read_format & PERF_FORMAT_GROUP))
		err = EINVAL;
	else if (inj == INJ_EACCES)
		err = EACCES;
	else if (inj == INJ_EMFILE)
		err = EMFILE;
	else if (inj == INJ_ESRCH_TID && pid == inj_tid)
		err = ESRCH;
	if (err) {
		errno = err;
		return -1;
	}
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group_fd, flags);
}

/* ------------------------------------------------------------ fake sysfs */

static char sysfs_root[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s", sysfs_root, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void mkpmu(const char *pmu)
{
	char path[256];

	snprintf(path, sizeof(path), "mkdir -p %s/bus/event_source/devices/%s/format "
		 "%s/bus/event_source/devices/%s/events", sysfs_root, pmu, sysfs_root, pmu);
	if (system(path))
		diag("mkdir failed: %s", path);
}

static bool make_fake_sysfs(void)
{
	snprintf(sysfs_root, sizeof(sysfs_root), "/tmp/tl-sysfs-XXXXXX");
	if (!mkdtemp(sysfs_root))
		return false;
	mkpmu("fakepmu");
	put("fakepmu/type", "42\n");
	put("fakepmu/format/event", "config:0-7\n");
	put("fakepmu/format/umask", "config:8-15\n");
	put("fakepmu/format/edge", "config:18\n");
	put("fakepmu/format/cmask", "config:24-31\n");
	put("fakepmu/format/split", "config:0-3,32-35\n");
	put("fakepmu/format/ldlat", "config1:0-15\n");
	put("fakepmu/events/foo", "event=0x3c,umask=0x01\n");
	put("fakepmu/events/needs", "event=0xcd,umask=0x1,ldlat=?\n");
	put("fakepmu/events/energy", "event=0x02\n");
	put("fakepmu/events/energy.scale", "2.5e-1\n");
	put("fakepmu/events/energy.unit", "Joules\n");
	/* a "PMU" whose type is the software one: its alias is task-clock
	 * (config 1), so .scale and .unit can be checked on real counts */
	mkpmu("fakesw");
	put("fakesw/type", "1\n");
	put("fakesw/format/event", "config:0-63\n");
	put("fakesw/events/tick", "event=0x1\n");
	put("fakesw/events/tick.scale", "0.5\n");
	put("fakesw/events/tick.unit", "halfns\n");
	setenv("TLREPLAY_SYSFS_ROOT", sysfs_root, 1);
	return true;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	TL_UNUSED(st);
	TL_UNUSED(flag);
	TL_UNUSED(ftw);
	return remove(path);
}

static void drop_fake_sysfs(void)
{
	unsetenv("TLREPLAY_SYSFS_ROOT");
	nftw(sysfs_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ------------------------------------------------------------ tests */

/* Before anything loads libpfm4: in a child where it cannot load. */
static void test_no_libpfm(void)
{
	int fd[2], st;
	char msg[600] = "";
	pid_t pid;
	ssize_t n;

	if (pipe(fd))
		return;
	pid = fork();
	if (pid == 0) {
		struct tl_counters *c = NULL;
		int r;

		setenv("TLREPLAY_LIBPFM", "/nonexistent/libpfm.so.4", 1);
		r = tl_counters_open("task-clock,INST_RETIRED.ANY", NULL, &c);
		snprintf(msg, sizeof(msg), "%d|%s", r, tl_last_error());
		if (write(fd[1], msg, strlen(msg)) < 0)
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	n = read(fd[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fd[0]);
	waitpid(pid, &st, 0);
	ok(!strncmp(msg, "-22|", 4) && has(msg, "'INST_RETIRED.ANY'") &&
		   has(msg, "libpfm4 could not be loaded") && has(msg, "/nonexistent/libpfm.so.4"),
	   "without libpfm4, a PMU-specific name is unknown and the message says why: %s", msg);
}

static void test_parse_generic(void)
{
	struct tl_cnt_list l;
	struct tl_cnt_ev *e;

	ok(parse("task-clock", &l) == 0 && l.ev.n == 1 && l.grp.n == 1 &&
		   l.ev.v[0].attr.type == PERF_TYPE_SOFTWARE &&
		   l.ev.v[0].attr.config == PERF_COUNT_SW_TASK_CLOCK && l.ev.v[0].scale == 1e-6 &&
		   !strcmp(l.ev.v[0].unit, "msec") && !l.grp.v[0].braces,
	   "task-clock: software clock, in msec");
	tl_cnt_list_free(&l);

	ok(parse("cycles:u,cycles:k,instructions:uk,cpu-clock:h", &l) == 0 && l.ev.n == 4,
	   "modifiers parse");
	e = l.ev.v;
	ok(e[0].attr.type == PERF_TYPE_HARDWARE && e[0].attr.config == PERF_COUNT_HW_CPU_CYCLES &&
		   !e[0].attr.exclude_user && e[0].attr.exclude_kernel && e[0].attr.exclude_hv &&
		   e[0].priv_given && !strcmp(e[0].name, "cycles:u"),
	   ":u excludes kernel and hypervisor");
	ok(e[1].attr.exclude_user && !e[1].attr.exclude_kernel && e[1].attr.exclude_hv,
	   ":k excludes user and hypervisor");
	ok(!e[2].attr.exclude_user && !e[2].attr.exclude_kernel && e[2].attr.exclude_hv &&
		   e[2].attr.config == PERF_COUNT_HW_INSTRUCTIONS,
	   ":uk counts both");
	ok(e[3].attr.exclude_user && e[3].attr.exclude_kernel && !e[3].attr.exclude_hv,
	   ":h counts the hypervisor only");
	tl_cnt_list_free(&l);

	ok(parse("cycles:ppGIDe", &l) == 0 && l.ev.v[0].attr.precise_ip == 2 &&
		   l.ev.v[0].attr.exclude_host && !l.ev.v[0].attr.exclude_guest &&
		   l.ev.v[0].attr.exclude_idle && l.ev.v[0].attr.pinned &&
		   l.ev.v[0].attr.exclusive && !l.ev.v[0].priv_given,
	   "p (precise), G (guest only), I, D (pinned), e (exclusive)");
	tl_cnt_list_free(&l);

	ok(parse("cpu-cycles,branch-instructions,idle-cycles-frontend,idle-cycles-backend,"
		 "faults,cs,migrations,ref-cycles,bus-cycles,major-faults,minor-faults,"
		 "alignment-faults,emulation-faults,dummy,cache-references,cache-misses,"
		 "stalled-cycles-frontend,stalled-cycles-backend,branches,branch-misses", &l) == 0 &&
		   l.ev.n == 20 && l.ev.v[0].attr.config == PERF_COUNT_HW_CPU_CYCLES &&
		   l.ev.v[1].attr.config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS &&
		   l.ev.v[2].attr.config == PERF_COUNT_HW_STALLED_CYCLES_FRONTEND &&
		   l.ev.v[4].attr.type == PERF_TYPE_SOFTWARE &&
		   l.ev.v[4].attr.config == PERF_COUNT_SW_PAGE_FAULTS &&
		   l.ev.v[5].attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES &&
		   l.ev.v[6].attr.config == PERF_COUNT_SW_CPU_MIGRATIONS &&
		   l.ev.v[7].attr.config == PERF_COUNT_HW_REF_CPU_CYCLES &&
		   l.ev.v[13].attr.config == PERF_COUNT_SW_DUMMY,
	   "perf's aliases (cpu-cycles, faults, cs, migrations, idle-cycles-*, ...)");
	tl_cnt_list_free(&l);

	ok(parse("r1a2,r01C2:u", &l) == 0 && l.ev.v[0].attr.type == PERF_TYPE_RAW &&
		   l.ev.v[0].attr.config == 0x1a2 && l.ev.v[1].attr.config == 0x1c2 &&
		   l.ev.v[1].attr.exclude_kernel,
	   "raw rNNNN (hex), with modifiers");
	tl_cnt_list_free(&l);
}

static void test_parse_cache(void)
{
	static const struct {
		const char *name;
		uint64_t config;
	} cases[] = {
		{ "L1-dcache-loads", 0x00000 },	      { "L1-dcache-load-misses", 0x10000 },
		{ "L1-dcache-stores", 0x00100 },      { "L1-dcache-prefetches", 0x00200 },
		{ "L1-icache-load-misses", 0x10001 }, { "LLC-loads", 0x00002 },
		{ "LLC-load-misses", 0x10002 },	      { "LLC-stores", 0x00102 },
		{ "dTLB-loads", 0x00003 },	      { "dTLB-load-misses", 0x10003 },
		{ "iTLB-loads", 0x00004 },	      { "iTLB-load-misses", 0x10004 },
		{ "branch-loads", 0x00005 },	      { "branch-load-misses", 0x10005 },
		{ "node-loads", 0x00006 },	      { "node-store-misses", 0x10106 },
		{ "L1-dcache-misses", 0x10000 },      { "l1d-miss-store", 0x10100 },
	};
	struct tl_cnt_list l;
	size_t i;
	bool all = true;

	for (i = 0; i < TL_ARRAY_SIZE(cases); i++) {
		if (parse(cases[i].name, &l) || l.ev.v[0].attr.type != PERF_TYPE_HW_CACHE ||
		    l.ev.v[0].attr.config != cases[i].config) {
			diag("%s: wrong", cases[i].name);
			all = false;
		}
		tl_cnt_list_free(&l);
	}
	ok(all, "hardware cache events built from PERF_COUNT_HW_CACHE_* as perf does (%zu names)",
	   TL_ARRAY_SIZE(cases));
	ok(parse("L1-icache-stores", &l) == -EINVAL && parse("iTLB-prefetches", &l) == -EINVAL,
	   "cache operations perf's table does not allow are unknown");
}

static void test_parse_groups(void)
{
	struct tl_cnt_list l;

	ok(parse("task-clock, {cycles,instructions}:W ,page-faults", &l) == 0 && l.ev.n == 4 &&
		   l.grp.n == 3 && l.grp.v[1].braces && l.grp.v[1].weak && l.grp.v[1].first == 1 &&
		   l.grp.v[1].n == 2 && l.ev.v[2].group == 1 && !strcmp(l.ev.v[1].name, "cycles") &&
		   !strcmp(l.ev.v[3].name, "page-faults") && !l.grp.v[0].braces,
	   "a weak group between events (W is not shown in member names)");
	tl_cnt_list_free(&l);

	ok(parse("{cycles,instructions:k}:u", &l) == 0 && !l.grp.v[0].weak &&
		   !strcmp(l.ev.v[0].name, "cycles:u") && !strcmp(l.ev.v[1].name, "instructions:ku") &&
		   l.ev.v[0].attr.exclude_kernel && !l.ev.v[1].attr.exclude_kernel &&
		   !l.ev.v[1].attr.exclude_user && l.ev.v[1].attr.exclude_hv,
	   "group modifiers apply to every member and widen theirs, as perf's");
	tl_cnt_list_free(&l);
}

static void test_syntax_errors(void)
{
	static const struct {
		const char *list, *want;
	} cases[] = {
		{ "", "an event is missing at column 1" },
		{ "cycles,", "an event is missing at column 8" },
		{ "cycles,,instructions", "an event is missing at column 8" },
		{ "{cycles,instructions", "'{' without its closing '}' at column 1" },
		{ "task-clock,{cycles,{instructions}}", "groups cannot be nested at column 20" },
		{ "cycles}", "'}' without its '{' at column 7" },
		{ "cycles:x", "unknown modifier at column 8" },
		{ "cycles:pppp", "unknown modifier at column 11" },
		{ "{cycles}:uq", "bad group modifier at column 11" },
		{ "{}", "an event is missing at column 2" },
		{ "fakepmu/event=1", "'/' without its closing '/' at column 8" },
		{ "/event=1/", "a PMU name must come before '/' at column 1" },
		/* a pasted line break or tab inside a name: said where, never "libpfm4 knows it
		 * but cannot encode it" */
		{ "task-c\nlock", "a space or control character inside an event at column 7" },
		{ "task-clock,page faults", "a space or control character inside an event at column 16" },
		{ "{cycles,task-clock\tx}", "a space or control character inside an event at column 19" },
		{ "task-c\001lock", "a space or control character inside an event at column 7" },
	};
	struct tl_cnt_list l;
	size_t i;
	int r;

	for (i = 0; i < TL_ARRAY_SIZE(cases); i++) {
		char shown[64];

		snprintf(shown, sizeof(shown), "%s", cases[i].list);
		tl_one_line(shown, sizeof(shown)); /* a TAP line stays one line */
		r = parse(cases[i].list, &l);
		ok(r == -EINVAL && has(tl_last_error(), cases[i].want), "syntax \"%s\": %s", shown, tl_last_error());
	}
	/* spaces around events are not inside one */
	r = parse(" task-clock , page-faults ", &l);
	ok(r == 0 && l.ev.n == 2, "\" task-clock , page-faults \": two events (%s)", r ? tl_last_error() : "ok");
	if (r == 0)
		tl_cnt_list_free(&l);
}

/* Messages quote what was typed: a newline in it does not split the line
 * (found by fuzz_events), and tl_one_line() cuts what does not fit. */
static void test_one_line_messages(void)
{
	struct tl_cnt_list l;
	char buf[12] = "a\tb\001c\nde";
	int r = parse("sm_s\nvml/of,task-c", &l);

	ok(r == -EINVAL && !strchr(tl_last_error(), '\n') && has(tl_last_error(), "sm_s\\nvml/of"),
	   "an event list with a newline: the message is one line, the newline shown as \\n (%s)",
	   tl_last_error());
	tl_one_line(buf, sizeof(buf));
	ok(!strcmp(buf, "a\\tb\\x01c\\n"), "tl_one_line: \\t, \\x01, \\n, and cut where the room ends: \"%s\"", buf);
	strcpy(buf, "plain");
	tl_one_line(buf, sizeof(buf));
	ok(!strcmp(buf, "plain"), "tl_one_line: a line without control characters is left alone");
}

static void test_suggestions(void)
{
	static const tl_cnt_names_fn known[] = { tl_cnt_generic_foreach, tl_cnt_sysfs_foreach };
	struct tl_counters *c = NULL;
	char buf[200];

	ok(tl_cnt_edit_distance("kitten", "sitting") == 3 &&
		   tl_cnt_edit_distance("", "abc") == 3 && tl_cnt_edit_distance("ABC", "abc") == 0,
	   "edit distance");
	ok(tl_counters_open("task-clock,instrctions", NULL, &c) == -EINVAL && !c &&
		   has(tl_last_error(), "unknown event 'instrctions' at column 12") &&
		   has(tl_last_error(), "did you mean: instructions"),
	   "typo: %s", tl_last_error());
	tl_cnt_suggest("L1-dcache-load-mises", known, TL_ARRAY_SIZE(known), buf, sizeof(buf));
	ok(!strncmp(buf, "L1-dcache-load-misses", 21), "cache name typo: %s", buf);
	tl_cnt_suggest("taskclock", known, TL_ARRAY_SIZE(known), buf, sizeof(buf));
	ok(!strncmp(buf, "task-clock", 10), "missing dash: %s", buf);
	tl_cnt_suggest("zzzzzzzzzzzzzzzzz", known, TL_ARRAY_SIZE(known), buf, sizeof(buf));
	ok(buf[0] == '\0', "nothing close: no suggestion");
	ok(tl_counters_open("cylces:u", NULL, &c) == -EINVAL && has(tl_last_error(), "'cylces'") &&
		   has(tl_last_error(), "cycles"),
	   "typo with modifiers names the base: %s", tl_last_error());
}

static void test_sysfs_parse(void)
{
	struct tl_cnt_list l;
	struct tl_cnt_ev *e;
	int r;

	ok(parse("fakepmu/event=0x3c,umask=0x1,cmask=2/", &l) == 0 && l.ev.v[0].attr.type == 42 &&
		   l.ev.v[0].attr.config == 0x0200013c &&
		   !strcmp(l.ev.v[0].name, "fakepmu/event=0x3c,umask=0x1,cmask=2/"),
	   "pmu/event=,umask=,cmask=/ placed by the format files");
	tl_cnt_list_free(&l);
	ok(parse("fakepmu/event=0x3c,edge/,fakepmu/split=0xff/,fakepmu/event=1,ldlat=300/", &l) == 0 &&
		   l.ev.v[0].attr.config == (0x3cULL | 1ULL << 18) &&
		   l.ev.v[1].attr.config == 0xf0000000fULL && l.ev.v[2].attr.config1 == 300,
	   "flag terms, split bit ranges (config:0-3,32-35), config1 formats");
	tl_cnt_list_free(&l);
	ok(parse("fakepmu/foo/,fakepmu/foo,umask=2/u,fakepmu/config=0x1234,config1=5,config2=6/",
		 &l) == 0, "aliases, alias + term, raw config terms");
	e = l.ev.v;
	ok(e[0].attr.config == 0x13c && e[1].attr.config == 0x23c && e[1].attr.exclude_kernel &&
		   !strcmp(e[1].name, "fakepmu/foo,umask=2/u") && e[2].attr.config == 0x1234 &&
		   e[2].attr.config1 == 5 && e[2].attr.config2 == 6,
	   "alias terms, a later term overriding one, modifiers after '/'");
	tl_cnt_list_free(&l);
	ok(parse("fakepmu/energy/:u,energy", &l) == 0 && l.ev.v[0].scale == 0.25 &&
		   !strcmp(l.ev.v[0].unit, "Joules") && l.ev.v[1].attr.type == 42 &&
		   l.ev.v[1].attr.config == 2 && !strcmp(l.ev.v[1].unit, "Joules"),
	   "an alias's .scale and .unit; a bare alias found in its PMU");
	tl_cnt_list_free(&l);
	ok(parse("{task-clock,fakepmu/foo/}:u", &l) == 0 && !strcmp(l.ev.v[1].name, "fakepmu/foo/u"),
	   "group modifiers after a PMU event's '/'");
	tl_cnt_list_free(&l);

	r = parse("fakepmu/event=0x100/", &l);
	ok(r == -EINVAL && has(tl_last_error(), "does not fit its 8 bits"), "too wide: %s",
	   tl_last_error());
	r = parse("fakepmu/bogus=1/", &l);
	ok(r == -EINVAL && has(tl_last_error(), "no term or event 'bogus'") &&
		   has(tl_last_error(), "cmask, edge, event, ldlat, split, umask"),
	   "unknown term lists the PMU's terms: %s", tl_last_error());
	r = parse("fakepmu/fooo/", &l);
	ok(r == -EINVAL && has(tl_last_error(), "did you mean: fakepmu/foo/"),
	   "unknown alias suggests: %s", tl_last_error());
	r = parse("nopmu/event=1/", &l);
	ok(r == -EINVAL && has(tl_last_error(), "no PMU 'nopmu'"), "no such PMU: %s",
	   tl_last_error());
	r = parse("fakepmu/event=zz/", &l);
	ok(r == -EINVAL && has(tl_last_error(), "bad value 'zz'"), "bad value: %s",
	   tl_last_error());
	r = parse("fakepmu/needs/", &l);
	ok(r == -EINVAL && has(tl_last_error(), "needs a value for 'ldlat'"),
	   "an alias parameter left unset: %s", tl_last_error());
	ok(parse("fakepmu/needs,ldlat=3/", &l) == 0 && l.ev.v[0].attr.config == 0x1cd &&
		   l.ev.v[0].attr.config1 == 3,
	   "an alias parameter given");
	tl_cnt_list_free(&l);
	ok(parse("energi", &l) == -EINVAL && has(tl_last_error(), "fakepmu/energy/"),
	   "suggestions include sysfs events: %s", tl_last_error());
	ok(tl_counters_known("fakepmu/foo/") && tl_counters_known("energy") &&
		   tl_counters_known("fakepmu/event=1/") && !tl_counters_known("fakepmu/nope/") &&
		   !tl_counters_known("nopmu/event=1/"),
	   "known: sysfs names");
}

struct listing {
	char *all;
	size_t len, notes;
	bool empty_desc;
};

static void collect(const char *name, const char *desc, void *ctx)
{
	struct listing *l = ctx;
	size_t n = strlen(name) + 2;
	char *p;

	if (!name[0])
		l->notes++;
	if (!desc || !desc[0] || strchr(desc, '\n'))
		l->empty_desc = true;
	p = realloc(l->all, l->len + n + 1);
	if (!p)
		return;
	l->all = p;
	snprintf(l->all + l->len, n + 1, "|%s|", name);
	l->len += n;
}

/* A hybrid CPU (P- and E-cores): two core PMUs and no "cpu" one. */
static void test_hybrid(void)
{
	struct tl_cnt_list l;
	struct tl_cnt_ev *e;
	char cmd[512];

	mkpmu("cpu_core");
	put("cpu_core/type", "4\n");
	put("cpu_core/cpus", "0-7\n");
	mkpmu("cpu_atom");
	put("cpu_atom/type", "10\n");
	put("cpu_atom/cpus", "8-15\n");

	ok(parse("cycles", &l) == 0 && l.ev.n == 2 && l.grp.n == 2 &&
		   !strcmp(l.ev.v[0].name, "cpu_atom/cycles/") && !strcmp(l.ev.v[1].name, "cpu_core/cycles/") &&
		   l.ev.v[0].attr.type == PERF_TYPE_HARDWARE &&
		   l.ev.v[0].attr.config == (10ULL << 32 | PERF_COUNT_HW_CPU_CYCLES) &&
		   l.ev.v[1].attr.config == (4ULL << 32 | PERF_COUNT_HW_CPU_CYCLES) &&
		   l.ev.v[0].group == 0 && l.ev.v[1].group == 1,
	   "hybrid: a generic event becomes one per core PMU, its type in config[63:32]");
	tl_cnt_list_free(&l);

	ok(parse("task-clock,{cycles,instructions}:u,page-faults", &l) == 0 && l.ev.n == 6 && l.grp.n == 4,
	   "hybrid: a group of hardware events becomes a group per core PMU");
	e = l.ev.v;
	ok(l.ev.n == 6 && !strcmp(e[0].name, "task-clock") && !strcmp(e[1].name, "cpu_atom/cycles:u/") &&
		   !strcmp(e[2].name, "cpu_atom/instructions:u/") && !strcmp(e[3].name, "cpu_core/cycles:u/") &&
		   !strcmp(e[4].name, "cpu_core/instructions:u/") && !strcmp(e[5].name, "page-faults") &&
		   e[2].attr.exclude_kernel && e[4].attr.config == (4ULL << 32 | PERF_COUNT_HW_INSTRUCTIONS) &&
		   l.grp.v[1].braces && l.grp.v[1].first == 1 && l.grp.v[1].n == 2 && l.grp.v[2].first == 3 &&
		   l.grp.v[2].n == 2 && e[3].group == 2 && e[5].group == 3 && e[5].attr.type == PERF_TYPE_SOFTWARE,
	   "hybrid: names, modifiers, group bounds and software events unchanged");
	tl_cnt_list_free(&l);

	ok(parse("{cycles,page-faults}", &l) == 0 && l.ev.n == 3 && l.grp.n == 2 && l.grp.v[0].n == 2 &&
		   !strcmp(l.ev.v[1].name, "page-faults") && l.grp.v[1].n == 1 &&
		   !strcmp(l.ev.v[2].name, "cpu_core/cycles/"),
	   "hybrid: a group's software member goes with the first core PMU only");
	tl_cnt_list_free(&l);

	ok(parse("cpu_core/cycles/,cpu_atom/L1-dcache-load-misses/u", &l) == 0 && l.ev.n == 2 &&
		   l.ev.v[0].attr.type == PERF_TYPE_HARDWARE && l.ev.v[0].attr.config == 4ULL << 32 &&
		   l.ev.v[1].attr.type == PERF_TYPE_HW_CACHE && (l.ev.v[1].attr.config >> 32) == 10 &&
		   (l.ev.v[1].attr.config & 0xffffff) == (PERF_COUNT_HW_CACHE_L1D |
		   PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_MISS << 16) &&
		   l.ev.v[1].attr.exclude_kernel && !strcmp(l.ev.v[1].name, "cpu_atom/L1-dcache-load-misses/u"),
	   "hybrid: cpu_core/cycles/ and cpu_atom/<cache event>/ name one core PMU");
	tl_cnt_list_free(&l);

	mkpmu("cpu");
	ok(parse("cycles", &l) == 0 && l.ev.n == 1 && !strcmp(l.ev.v[0].name, "cycles") &&
		   l.ev.v[0].attr.config == PERF_COUNT_HW_CPU_CYCLES,
	   "not hybrid when a plain cpu PMU exists: cycles stays one event");
	tl_cnt_list_free(&l);

	snprintf(cmd, sizeof(cmd), "rm -rf %s/bus/event_source/devices/cpu_core %s/bus/event_source/devices/cpu_atom "
		 "%s/bus/event_source/devices/cpu", sysfs_root, sysfs_root, sysfs_root);
	if (system(cmd))
		diag("cleanup failed: %s", cmd);
}

static void test_list(void)
{
	struct listing l = { 0 };
	static const char *const want[] = {
		"|cycles|", "|cpu-cycles|", "|instructions|", "|task-clock|", "|cs|",
		"|page-faults|", "|faults|", "|ref-cycles|", "|L1-dcache-load-misses|",
		"|L1-icache-load-misses|", "|LLC-loads|", "|dTLB-load-misses|", "|iTLB-loads|",
		"|branch-load-misses|", "|node-loads|", "|rNNNN|", "|fakepmu/foo/|",
		"|fakepmu/energy/|", "|fakepmu/<terms>/|", "|fakesw/tick/|",
	};
	size_t i;
	bool all = true;

	tl_counters_list(collect, &l);
	for (i = 0; i < TL_ARRAY_SIZE(want); i++) {
		if (!has(l.all, want[i])) {
			diag("missing from the list: %s", want[i]);
			all = false;
		}
	}
	ok(all && !has(l.all, "|L1-icache-stores|") && !has(l.all, "energy.scale"),
	   "the list: generic names, aliases, cache events, rNNNN, sysfs events and terms");
	ok(!l.empty_desc, "every entry has a one-line description");
	ok(tl_cnt_pfm_unavailable() ? l.notes == 1 : true,
	   "a note when libpfm4 is unavailable (%zu notes)", l.notes);
	free(l.all);
	tl_counters_list(NULL, NULL);
}

static void test_known(void)
{
	struct tl_counters *c = NULL;
	char before[200];

	tl_counters_open("nosuchevent", NULL, &c);
	snprintf(before, sizeof(before), "%s", tl_last_error());
	ok(tl_counters_known("instructions") && tl_counters_known("L1-dcache-loads") &&
		   tl_counters_known("r1a2") && tl_counters_known("cs") &&
		   !tl_counters_known("bogus-event") && !tl_counters_known("") &&
		   !tl_counters_known(NULL) && !tl_counters_known("cycles,instructions"),
	   "known: generic, cache, raw; not unknown names or lists");
	ok(!strcmp(before, tl_last_error()), "known() leaves the last error alone");
}

static void test_scale_and_messages(void)
{
	char buf[600];

	ok(tl_cnt_scaled(1000, 100, 100, false) == 1000 && tl_cnt_scaled(1000, 200, 50, false) == 4000 &&
		   tl_cnt_scaled(1000, 200, 50, true) == 1000 && tl_cnt_scaled(1000, 200, 0, false) == 0,
	   "scaling: raw * enabled / running when multiplexed, not with no_scale");
	tl_cnt_paranoid_msg(buf, sizeof(buf), 3, false, "cycles", 123, false, EACCES);
	ok(has(buf, "/proc/sys/kernel/perf_event_paranoid is 3") && has(buf, "'cycles'") &&
		   has(buf, "process 123") && has(buf, "needs 2 or less") &&
		   has(buf, "kernel.perf_event_paranoid=2") && has(buf, "Debian"),
	   "paranoid 3: %s", buf);
	tl_cnt_paranoid_msg(buf, sizeof(buf), 2, false, "cycles:k", 7, true, EPERM);
	ok(has(buf, "is 2") && has(buf, "needs 1 or less") && has(buf, "EPERM"),
	   "paranoid 2 and kernel space: %s", buf);
	tl_cnt_paranoid_msg(buf, sizeof(buf), 1, false, "cycles", 7, false, EACCES);
	ok(has(buf, "which allows it") && has(buf, "another user") && has(buf, "seccomp"),
	   "paranoid low enough: the other causes: %s", buf);
	tl_cnt_paranoid_msg(buf, 20, 2, false, "cycles", 7, false, EACCES);
	ok(strlen(buf) == 19, "the message is cut to its buffer");
	ok(has(tl_cnt_errno_why(ENOENT), "ENOENT") && tl_cnt_errno_unsupported(EOPNOTSUPP) &&
		   tl_cnt_errno_unsupported(ENODEV) && !tl_cnt_errno_unsupported(EACCES) &&
		   !tl_cnt_errno_unsupported(ESRCH),
	   "errno classes");
}

/* ------------------------------------------------------------ counting */

static int region(struct tl_counters *c, const struct tl_counter_value **v, size_t *n);

static int open_read(const char *ev, pid_t pid, struct tl_counters **c,
		     const struct tl_counter_value **v, size_t *n)
{
	struct tl_counters_opts o = { .sz = sizeof(o), .pid = pid };
	int r = tl_counters_open(ev, &o, c);

	if (r)
		diag("open %s: %s", ev, tl_last_error());
	return r ? r : tl_counters_read(*c, v, n);
}

static void test_count_self(void)
{
	struct tl_counters *c = NULL;
	const struct tl_counter_value *v, *tc, *pf;
	size_t n;
	double cpu0, cpu, first;
	int r;

	r = open_read("task-clock,page-faults,context-switches", 0, &c, &v, &n);
	ok(r == 0 && n == 3 && v[0].status == TL_COUNTER_NOT_COUNTED && v[0].value == 0,
	   "opened disabled: not counted before the first enable");
	if (r)
		return;
	cpu0 = process_cpu_s();
	r = tl_counters_enable(c);
	spin(SPIN_S);
	touch_memory();
	r = r ? r : tl_counters_disable(c);
	cpu = process_cpu_s() - cpu0;
	r = r ? r : tl_counters_read(c, &v, &n);
	tc = find(v, n, "task-clock");
	pf = find(v, n, "page-faults");
	ok(r == 0 && tc && tc->status == TL_COUNTER_COUNTED && !strcmp(tc->unit, "msec") &&
		   tc->value >= 500 * cpu && tc->value <= 1500 * cpu + 5 &&
		   tc->value == tc->raw * 1e-6 && tc->enabled_ns == tc->running_ns && tc->group >= 0,
	   "task-clock of this process: %.1f msec for %.1f msec of CPU", tc ? tc->value : -1,
	   cpu * 1e3);
	ok(pf && pf->status == TL_COUNTER_COUNTED && pf->value >= (TOUCH_MB << 20) / 4096 / 2 &&
		   !strcmp(pf->unit, ""),
	   "page-faults while touching %d MiB: %.0f", TOUCH_MB, pf ? pf->value : -1);
	first = tc ? tc->value : 0;
	spin(SPIN_S / 2);
	r = tl_counters_read(c, &v, &n);
	ok(r == 0 && v[0].value == first, "disabled: task-clock stays (%.3f, then %.3f)", first,
	   v[0].value);
	r = tl_counters_enable(c);
	spin(SPIN_S / 4);
	r = r ? r : tl_counters_read(c, &v, &n);	/* while enabled */
	ok(r == 0 && v[0].status == TL_COUNTER_COUNTED && v[0].value >= 500 * SPIN_S / 4 &&
		   v[0].value < first,
	   "enable resets: the second region counts from zero (%.1f msec)", v[0].value);
	tl_counters_disable(c);
	tl_counters_close(c);
	tl_counters_close(NULL);
}

/* Members follow their leader: nothing before enable, and every region
 * counts (members opened disabled sometimes never counted). */
static void test_group_members(void)
{
	struct tl_counters *c = NULL;
	const struct tl_counter_value *v;
	size_t n;
	int r, i, missed = 0;

	r = open_read("{task-clock,page-faults}", 0, &c, &v, &n);
	touch_memory();
	r = r ? r : tl_counters_read(c, &v, &n);
	ok(r == 0 && v[0].status == TL_COUNTER_NOT_COUNTED && v[1].status == TL_COUNTER_NOT_COUNTED,
	   "a group's members do not count before enable");
	tl_counters_close(c);
	for (i = 0; i < 20 && !r; i++) {
		c = NULL;
		r = tl_counters_open("{task-clock,page-faults}", NULL, &c);
		r = r ? r : region(c, &v, &n);
		missed += !r && v[1].value < (TOUCH_MB << 20) / 4096 / 2;
		tl_counters_close(c);
	}
	ok(r == 0 && missed == 0, "a member counts in every region (%d of 20 missed)", missed);
}

static void test_unsupported_here(void)
{
	struct tl_counters *c = NULL;
	const struct tl_counter_value *v, *cy, *tc;
	size_t n;
	int r = open_read("cycles,task-clock", 0, &c, &v, &n);

	if (!r) {
		tl_counters_enable(c);
		spin(0.02);
		tl_counters_disable(c);
		r = tl_counters_read(c, &v, &n);
	}
	cy = r ? NULL : find(v, n, "cycles");
	tc = r ? NULL : find(v, n, "task-clock");
	ok(tc && tc->status == TL_COUNTER_COUNTED && tc->value > 0, "task-clock counts beside cycles");
	if (cy && cy->status == TL_COUNTER_NOT_SUPPORTED)
		ok(cy->why && cy->why[0] && cy->group == -1 && cy->value == 0,
		   "cycles: not supported here, why: %s", cy->why);
	else
		ok(cy && cy->status == TL_COUNTER_COUNTED, "cycles counted (this machine has a PMU)");
	tl_counters_close(c);

	r = open_read(NULL, 0, &c, &v, &n);
	ok(r == 0 && n == 8 && is(v[0].name, "task-clock") && is(v[7].name, "branch-misses"),
	   "NULL opens perf stat's default events");
	tl_counters_close(c);
}

static void test_sysfs_count(void)
{
	struct tl_counters *c = NULL;
	const struct tl_counter_value *v;
	size_t n;
	int r = open_read("fakesw/tick/,fakepmu/foo/", 0, &c, &v, &n);

	if (!r) {
		tl_counters_enable(c);
		spin(0.02);
		tl_counters_disable(c);
		r = tl_counters_read(c, &v, &n);
	}
	ok(r == 0 && v[0].status == TL_COUNTER_COUNTED && v[0].raw > 1e6 &&
		   v[0].value == v[0].raw * 0.5 && !strcmp(v[0].unit, "halfns"),
	   "a sysfs event's .scale and .unit applied to its count (%.0f -> %.0f %s)",
	   r ? 0 : v[0].raw, r ? 0 : v[0].value, r ? "" : v[0].unit);
	ok(r == 0 && v[1].status == TL_COUNTER_NOT_SUPPORTED,
	   "a PMU type the kernel does not have: not supported (%s)", r ? "" : v[1].why);
	tl_counters_close(c);
}

static void test_count_child(void)
{
	struct child ch;
	struct tl_counters *c = NULL;
	const struct tl_counter_value *v = NULL, *tc, *pf;
	size_t n = 0;
	double cpu0, cpu, first;
	int r;

	if (!child_start(&ch)) {
		skip("cannot start a child");
		return;
	}
	child_cpu(&ch);	/* the child is up, its worker thread too */
	r = open_read("task-clock,page-faults", ch.pid, &c, &v, &n);
	ok(r == 0, "open on a child (pid %d)", (int)ch.pid);
	if (r)
		goto out;
	cpu0 = child_cpu(&ch);
	r = tl_counters_enable(c);
	child_do(&ch, 's');
	child_do(&ch, 'm');
	r = r ? r : tl_counters_disable(c);
	cpu = child_cpu(&ch) - cpu0;
	r = r ? r : tl_counters_read(c, &v, &n);
	tc = find(v, n, "task-clock");
	pf = find(v, n, "page-faults");
	ok(r == 0 && tc && tc->status == TL_COUNTER_COUNTED && tc->value >= 500 * cpu &&
		   tc->value <= 1500 * cpu,
	   "child's task-clock %.1f msec against its own CPU time %.1f msec",
	   tc ? tc->value : -1, cpu * 1e3);
	ok(pf && pf->value >= (TOUCH_MB << 20) / 4096 / 2, "child's page-faults: %.0f",
	   pf ? pf->value : -1);
	first = tc ? tc->value : 0;
	child_do(&ch, 's');
	r = tl_counters_read(c, &v, &n);
	ok(r == 0 && v[0].value == first, "disabled: the child's spin is not counted");

	r = tl_counters_enable(c);
	child_do(&ch, 'w');
	r = r ? r : tl_counters_disable(c);
	r = r ? r : tl_counters_read(c, &v, &n);
	ok(r == 0 && v[0].value >= 500 * SPIN_S && v[0].value <= 1500 * SPIN_S + 20,
	   "a thread that existed at open is counted: %.1f msec", v[0].value);

	r = tl_counters_enable(c);
	child_do(&ch, 't');
	r = r ? r : tl_counters_disable(c);
	r = r ? r : tl_counters_read(c, &v, &n);
	ok(r == 0 && v[0].value >= 500 * SPIN_S && v[0].value <= 1500 * SPIN_S + 20,
	   "a thread started after open is counted (inherit): %.1f msec", v[0].value);
out:
	tl_counters_close(c);
	child_stop(&ch);
}

static void test_dead_pid(void)
{
	struct tl_counters_opts o = { .sz = sizeof(o) };
	struct tl_counters *c = NULL;
	int st;

	o.pid = fork();
	if (o.pid == 0)
		_exit(0);
	waitpid(o.pid, &st, 0);
	ok(tl_counters_open("task-clock", &o, &c) == -ESRCH && !c &&
		   has(tl_last_error(), "no process"),
	   "a dead pid: -ESRCH (%s)", tl_last_error());
	o.pid = -5;
	ok(tl_counters_open("task-clock", &o, &c) == -EINVAL, "a negative pid: -EINVAL");
	ok(tl_counters_open("task-clock", NULL, NULL) == -EINVAL && tl_counters_enable(NULL) == -EINVAL &&
		   tl_counters_disable(NULL) == -EINVAL && tl_counters_read(NULL, NULL, NULL) == -EINVAL,
	   "NULL handles: -EINVAL");
}

/* One region: enable, spin, touch memory, disable, read. */
static int region(struct tl_counters *c, const struct tl_counter_value **v, size_t *n)
{
	int r = tl_counters_enable(c);

	spin(0.02);
	touch_memory();
	r = r ? r : tl_counters_disable(c);
	return r ? r : tl_counters_read(c, v, n);
}

static void test_injected(void)
{
	struct tl_counters *c = NULL;
	const struct tl_counter_value *v = NULL;
	size_t n = 0;
	int (*orig)(struct perf_event_attr *, pid_t, int, int, unsigned long) = tl_cnt_sys_open;
	int r;

	tl_cnt_sys_open = injected_open;
	inj = INJ_ENOENT_FAULTS;
	r = open_read("{task-clock,page-faults,context-switches}", 0, &c, &v, &n);
	r = r ? r : region(c, &v, &n);
	ok(r == 0 && v[1].status == TL_COUNTER_NOT_SUPPORTED && has(v[1].why, "ENOENT") &&
		   v[0].status == TL_COUNTER_COUNTED && v[2].status == TL_COUNTER_COUNTED &&
		   v[0].group == v[2].group && v[0].enabled_ns == v[2].enabled_ns,
	   "a member the PMU lacks is left out; the rest stay one group");
	tl_counters_close(c);

	inj = INJ_GROUP_EINVAL;
	r = open_read("{task-clock,page-faults},context-switches", 0, &c, &v, &n);
	r = r ? r : region(c, &v, &n);
	ok(r == 0 && v[0].status == TL_COUNTER_NOT_SUPPORTED &&
		   v[1].status == TL_COUNTER_NOT_SUPPORTED && has(v[0].why, "at once") &&
		   has(v[1].why, "{task-clock") &&
		   has(v[1].why, ",page-faults") && v[2].status == TL_COUNTER_COUNTED,
	   "a group that cannot be scheduled at once: not supported as a whole (%s)",
	   r ? "" : v[0].why);
	tl_counters_close(c);
	r = open_read("{task-clock,page-faults}:W", 0, &c, &v, &n);
	r = r ? r : region(c, &v, &n);
	ok(r == 0 && v[0].status == TL_COUNTER_COUNTED && v[1].status == TL_COUNTER_COUNTED &&
		   v[0].group != v[1].group && v[1].value > 0,
	   "a weak group that cannot be scheduled at once is split, as perf does");
	tl_counters_close(c);

	inj = INJ_NO_GROUP_FORMAT;
	inj_group_format_seen = 0;
	r = open_read("{task-clock,page-faults}", 0, &c, &v, &n);
	r = r ? r : region(c, &v, &n);
	ok(r == 0 && inj_group_format_seen > 0 && v[0].status == TL_COUNTER_COUNTED &&
		   v[1].value > 0 && v[0].group == v[1].group,
	   "a kernel that refuses group reads with inherit: members read one by one");
	tl_counters_close(c);

	inj = INJ_NONE;
	tl_cnt_group_read = false;
	inj_group_format_seen = 0;
	r = open_read("{task-clock,page-faults}", 0, &c, &v, &n);
	r = r ? r : region(c, &v, &n);
	ok(r == 0 && inj_group_format_seen == 0 && v[0].value > 0 && v[1].value > 0,
	   "group reads off: the same values (r %d, %d group reads, %.1f msec, %.0f faults)", r,
	   inj_group_format_seen, r ? -1 : v[0].value, r ? -1 : v[1].value);
	tl_counters_close(c);
	tl_cnt_group_read = true;

	inj = INJ_EACCES;
	r = tl_counters_open("task-clock", NULL, &c);
	ok(r == -EACCES && !c && has(tl_last_error(), "perf_event_paranoid"),
	   "EACCES: %s", tl_last_error());
	inj = INJ_EMFILE;
	r = tl_counters_open("task-clock", NULL, &c);
	ok(r == -EMFILE && has(tl_last_error(), "ulimit -n"), "EMFILE: %s", tl_last_error());
	inj = INJ_NONE;
	tl_cnt_sys_open = orig;
}

static void test_thread_gone(void)
{
	struct child ch;
	struct tl_counters *c = NULL;
	const struct tl_counter_value *v = NULL;
	size_t n = 0;
	int (*orig)(struct perf_event_attr *, pid_t, int, int, unsigned long) = tl_cnt_sys_open;
	int r;

	if (!child_start(&ch)) {
		skip("cannot start a child");
		return;
	}
	child_cpu(&ch);
	inj_tid = other_thread(ch.pid);
	inj = INJ_ESRCH_TID;
	tl_cnt_sys_open = injected_open;
	r = open_read("task-clock", ch.pid, &c, &v, &n);
	inj = INJ_NONE;
	tl_cnt_sys_open = orig;
	if (!r) {
		tl_counters_enable(c);
		child_do(&ch, 'w');	/* the forgotten thread spins */
		child_do(&ch, 's');	/* the main thread spins */
		tl_counters_disable(c);
		r = tl_counters_read(c, &v, &n);
	}
	ok(inj_tid > 0 && r == 0 && v[0].value >= 500 * SPIN_S && v[0].value <= 1500 * SPIN_S,
	   "a thread that exits while opening is skipped; the others count (%.1f msec)",
	   r ? -1 : v[0].value);
	tl_counters_close(c);
	child_stop(&ch);
}

static void test_libpfm(void)
{
	struct tl_counters *c = NULL;
	const struct tl_counter_value *v = NULL;
	size_t n = 0;
	int r;

	if (tl_cnt_pfm_unavailable()) {
		skip("libpfm4 not available here");
		skip("libpfm4 not available here");
		return;
	}
	r = open_read("perf::PERF_COUNT_SW_TASK_CLOCK,perf::PERF_COUNT_SW_PAGE_FAULTS:u", 0, &c, &v,
		      &n);
	r = r ? r : region(c, &v, &n);
	ok(r == 0 && v[0].status == TL_COUNTER_COUNTED && v[0].value >= 10 &&
		   !strcmp(v[0].unit, "msec") && v[1].value > 0,
	   "libpfm4 names count (%.1f msec task-clock through libpfm4)", r ? -1 : v[0].value);
	tl_counters_close(c);
	ok(tl_counters_known("perf::PERF_COUNT_SW_CONTEXT_SWITCHES") &&
		   !tl_counters_known("perf::NO_SUCH_EVENT"),
	   "known: libpfm4 names");
}

/* As an unprivileged user with perf_event_paranoid >= 2: user space only,
 * as perf, and a clear -EACCES for ":k". Runs in a child that drops root. */
struct unpriv {
	int r_k, r_u, status;
	char msg[400], name[64];
	double value;
};

static void unpriv_checks(struct unpriv *u)
{
	struct tl_counters *c = NULL;
	const struct tl_counter_value *v;
	size_t n;

	u->r_k = tl_counters_open("task-clock:k", NULL, &c);
	snprintf(u->msg, sizeof(u->msg), "%s", tl_last_error());
	u->r_u = tl_counters_open("task-clock", NULL, &c);
	if (!u->r_u && !tl_counters_enable(c)) {
		spin(0.05);
		tl_counters_disable(c);
		if (!tl_counters_read(c, &v, &n)) {
			snprintf(u->name, sizeof(u->name), "%s", v[0].name);
			u->status = v[0].status;
			u->value = v[0].value;
		}
	}
	tl_counters_close(c);
}

static void test_unprivileged(void)
{
	struct tl_cnt_policy pol;
	struct unpriv u = { 0 };
	int fd[2], st;
	pid_t pid;

	tl_cnt_policy_get(&pol);
	if (pol.paranoid < 2) {
		skip("perf_event_paranoid < 2: nothing is refused");
		return;
	}
	if (!pol.privileged) {
		unpriv_checks(&u);
	} else if (geteuid() == 0 && !pipe(fd)) {
		pid = fork();
		if (pid == 0) {
			if (setgid(65534) || setuid(65534))
				_exit(1);
			prctl(PR_SET_DUMPABLE, 1);
			unpriv_checks(&u);
			if (write(fd[1], &u, sizeof(u)) != sizeof(u))
				_exit(1);
			_exit(0);
		}
		close(fd[1]);
		if (read(fd[0], &u, sizeof(u)) != sizeof(u))
			u.r_k = 1;
		close(fd[0]);
		waitpid(pid, &st, 0);
	} else {
		skip("privileged and not root: cannot drop privileges");
		return;
	}
	/* paranoid 3 refuses users everything on Debian's and Ubuntu's
	 * kernels only; mainline treats it as 2 */
	ok(u.r_k == -EACCES && has(u.msg, "perf_event_paranoid is") &&
		   has(u.msg, "needs 1 or less") &&
		   (u.r_u == 0 ? !strcmp(u.name, "task-clock:u") && u.status == TL_COUNTER_COUNTED &&
					 u.value > 10
			       : pol.paranoid >= 3 && u.r_u == -EACCES),
	   "unprivileged, paranoid %d: ':k' is -EACCES (%s); task-clock: %d, counts user space "
	   "as %s (%.1f msec)", pol.paranoid, u.msg, u.r_u, u.name, u.value);
}

/* Whether this machine lets us count at all (containers block
 * perf_event_open; Debian's perf_event_paranoid 3 refuses users). */
static bool counting_works(char *why, size_t size)
{
	struct tl_counters *c = NULL;
	const struct tl_counter_value *v;
	size_t n;
	int r = tl_counters_open("task-clock", NULL, &c);

	snprintf(why, size, "%s", r ? tl_last_error() : "task-clock does not count");
	if (!r && !tl_counters_enable(c)) {
		spin(0.01);
		tl_counters_disable(c);
		r = tl_counters_read(c, &v, &n) || v[0].status != TL_COUNTER_COUNTED;
	}
	tl_counters_close(c);
	return r == 0;
}

int main(void)
{
	char why[1024];

	setvbuf(stdout, NULL, _IONBF, 0);	/* children fork: no duplicated output */
	test_no_libpfm();
	test_parse_generic();
	test_parse_cache();
	test_parse_groups();
	test_suggestions();
	test_one_line_messages();
	test_known();
	test_scale_and_messages();
	if (make_fake_sysfs()) {
		test_syntax_errors();
		test_sysfs_parse();
		test_hybrid();
		test_list();
		if (counting_works(why, sizeof(why)))
			test_sysfs_count();
		drop_fake_sysfs();
	} else {
		skip("cannot make a fake sysfs tree");
	}
	test_dead_pid();
	test_unprivileged();
	if (!counting_works(why, sizeof(why))) {
		printf("ok %d # SKIP counting here: %s\n", ++tap_n, why);
		return done_testing();
	}
	test_count_self();
	test_group_members();
	test_unsupported_here();
	test_count_child();
	test_injected();
	test_thread_gone();
	test_libpfm();
	return done_testing();
}

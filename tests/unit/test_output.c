/* SPDX-License-Identifier: MIT */
/* Output files that appear whole (tlreplay/output.h): the mode a new file
 * gets from the umask (each umask in a child process: the library reads it
 * once), nothing in the directory before the commit, the old file intact
 * until then, nothing left by an abort, the fallback's hidden name and its
 * removal by tl_output_unlink_pending(), mkdir -p, a set of outputs named
 * together with SIGINT/SIGTERM held back (a SIGTERM every 100 microseconds
 * must never see some of them new and others old). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tlreplay/output.h>
#include <tlreplay/common.h>

#include "tap.h"

static char dir[256];

static int entries(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;

	while (dp && (e = readdir(dp)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (dp)
		closedir(dp);
	return n;
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return f ? buf : NULL;
}

/* In a child with umask @mask: write @path, return its mode (or -1). */
static int mode_under(mode_t mask, const char *path)
{
	int fds[2], st;
	pid_t pid;
	int mode = -1;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (!pid) {
		struct tl_output o;
		struct stat s;
		int m = -1;

		umask(mask);
		if (!tl_output_open(&o, path) && !tl_output_write(&o, "x\n", 2) && !tl_output_commit(&o) &&
		    !stat(path, &s))
			m = (int)(s.st_mode & 07777);
		if (write(fds[1], &m, sizeof(m)) != sizeof(m))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &mode, sizeof(mode)) != sizeof(mode))
		mode = -1;
	close(fds[0]);
	waitpid(pid, &st, 0);
	return mode;
}

static void modes(void)
{
	char p[300];

	snprintf(p, sizeof(p), "%s/m022", dir);
	ok(mode_under(022, p) == 0644, "umask 022: 0644");
	snprintf(p, sizeof(p), "%s/m077", dir);
	ok(mode_under(077, p) == 0600, "umask 077: 0600 (a private model's trace stays private)");
	snprintf(p, sizeof(p), "%s/m002", dir);
	ok(mode_under(002, p) == 0664, "umask 002: 0664 (a shared group folder)");
}

static void whole_or_nothing(void)
{
	struct tl_output o;
	char p[300];
	int n0;

	snprintf(p, sizeof(p), "%s/out.txt", dir);
	ok(!tl_output_open(&o, p) && !tl_output_write(&o, "old\n", 4) && !tl_output_commit(&o) &&
	   !strcmp(slurp(p), "old\n"), "a new file is written and named");
	n0 = entries(dir);
	ok(!tl_output_open(&o, p) && !tl_output_write(&o, "new\n", 4), "a second output of the same name opens");
	ok(entries(dir) == n0 && !strcmp(slurp(p), "old\n"),
	   "while it is written: no new name in the directory, the old file whole");
	ok(!tl_output_commit(&o) && !strcmp(slurp(p), "new\n") && entries(dir) == n0,
	   "commit replaces the old file, nothing else left");
	ok(o.fd == -1 && !o.path, "commit releases the output");
	ok(!tl_output_open(&o, p) && !tl_output_write(&o, "lost\n", 5), "a third output opens");
	tl_output_abort(&o);
	ok(!strcmp(slurp(p), "new\n") && entries(dir) == n0, "abort: the old file as it was, nothing left");
	tl_output_abort(&o);
	ok(1, "abort twice is harmless");
	snprintf(p, sizeof(p), "%s/no/such/dir/x", dir);
	ok(tl_output_open(&o, p) == -ENOENT && strstr(tl_last_error(), p), "a missing directory: -ENOENT naming the path (%s)",
	   tl_last_error());
}

static void fallback(void)
{
	struct tl_output o;
	char p[300];
	int n0, err;

	setenv("TLREPLAY_TEST_NO_O_TMPFILE", "1", 1);
	snprintf(p, sizeof(p), "%s/fb.txt", dir);
	n0 = entries(dir);
	err = tl_output_open(&o, p);
	ok(!err && o.tmp && strstr(o.tmp, "/.fb.txt.tmp."), "without O_TMPFILE: a hidden name beside the target (%s)",
	   o.tmp ? o.tmp : "none");
	ok(entries(dir) == n0 + 1 && !access(o.tmp, F_OK), "which exists while it is written");
	tl_output_unlink_pending();
	ok(entries(dir) == n0, "tl_output_unlink_pending() removes it (what a signal handler calls)");
	tl_output_abort(&o);
	ok(!tl_output_open(&o, p) && !tl_output_write(&o, "fb\n", 3) && !tl_output_commit(&o) &&
	   !strcmp(slurp(p), "fb\n") && entries(dir) == n0 + 1, "commit renames it into place, nothing else left");
	ok(!tl_output_open(&o, p), "another one opens");
	tl_output_abort(&o);
	ok(entries(dir) == n0 + 1 && !strcmp(slurp(p), "fb\n"), "abort removes its hidden name");
	unsetenv("TLREPLAY_TEST_NO_O_TMPFILE");
}

/* ---- commit_all: the new set whole, or the old one */

#define SET_N 32
static char set_first[300], set_last[300];
static volatile sig_atomic_t mixed, seen;

/* The first byte of @path ('o'ld or 'n'ew), async-signal-safe. */
static char first_byte(const char *path)
{
	char c = 0;
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = 0;
		close(fd);
	}
	return c;
}

/* SIGTERM, every few microseconds: the first and the last of the set are
 * named first and last, so one new and the other old is a torn set. */
static void on_term(int sig)
{
	(void)sig;
	seen++;
	if (first_byte(set_first) != first_byte(set_last))
		mixed = 1;
}

/* In a child (a timer sends it SIGTERM every 100 us): old files replaced by
 * a commit_all of @rounds sets; exit 0 when no handler saw a torn set, 2
 * when one did, 1 when something failed, 3 when no signal came while the
 * sets were named. */
static int torn_sets(int rounds)
{
	struct tl_output v[SET_N];
	struct sigaction sa = { .sa_handler = on_term, .sa_flags = SA_RESTART };
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGTERM };
	struct itimerspec its = { .it_interval = { 0, 100000 }, .it_value = { 0, 100000 } };
	timer_t t;
	char p[300];
	int r, i;

	for (i = 0; i < SET_N; i++) {	/* the old set */
		snprintf(p, sizeof(p), "%s/set/%02d.csv", dir, i);
		if (tl_output_open(&v[i], p) || tl_output_write(&v[i], "o", 1) || tl_output_commit(&v[i]))
			return 1;
	}
	snprintf(set_first, sizeof(set_first), "%s/set/%02d.csv", dir, 0);
	snprintf(set_last, sizeof(set_last), "%s/set/%02d.csv", dir, SET_N - 1);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) || timer_create(CLOCK_MONOTONIC, &ev, &t) || timer_settime(t, 0, &its, NULL))
		return 1;
	for (r = 0; r < rounds && !mixed; r++) {
		const char *c = r % 2 ? "o" : "n";
		int before;

		for (i = 0; i < SET_N; i++) {
			snprintf(p, sizeof(p), "%s/set/%02d.csv", dir, i);
			if (tl_output_open(&v[i], p) || tl_output_write(&v[i], c, 1))
				return 1;
		}
		before = seen;
		if (tl_output_commit_all(v, SET_N) || first_byte(set_first) != c[0] || first_byte(set_last) != c[0])
			return 1;
		if (seen == before)
			return 3;
	}
	timer_delete(t);
	return mixed ? 2 : 0;
}

static int in_child(int (*fn)(int), int arg)
{
	pid_t pid = fork();
	int st;

	if (!pid)
		_exit(fn(arg));
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void commit_all(void)
{
	struct tl_output v[3];
	char p[3][320], sub[300];
	int i, rc;

	snprintf(sub, sizeof(sub), "%s/set", dir);
	ok(!tl_output_mkdirs(sub), "a directory for the sets");
	for (i = 0; i < 3; i++) {
		snprintf(p[i], sizeof(p[i]), "%s/all%d.csv", sub, i);
		tl_output_open(&v[i], p[i]);
		tl_output_write(&v[i], "n", 1);
	}
	ok(!tl_output_commit_all(v, 3) && first_byte(p[0]) == 'n' && first_byte(p[2]) == 'n' && v[1].fd == -1,
	   "commit_all names every output and releases them");
	for (i = 0; i < 3; i++)
		unlink(p[i]);
	rc = in_child(torn_sets, 5);
	ok(rc == 0, "5 sets of %d named under a SIGTERM every 100 us: never some new and some old (%d)", SET_N, rc);
	ok(entries(sub) == SET_N, "and nothing else in their directory");
}

static void mkdirs(void)
{
	char p[300], f[320];
	struct stat st;

	snprintf(p, sizeof(p), "%s/a/b/c", dir);
	ok(!tl_output_mkdirs(p) && !stat(p, &st) && S_ISDIR(st.st_mode), "mkdir -p a/b/c");
	ok(!tl_output_mkdirs(p), "again: an existing directory is fine");
	snprintf(f, sizeof(f), "%s/a/file", dir);
	fclose(fopen(f, "w"));
	snprintf(p, sizeof(p), "%s/a/file/d", dir);
	ok(tl_output_mkdirs(p) == -ENOTDIR && strstr(tl_last_error(), "not a directory"),
	   "a file in the way: -ENOTDIR (%s)", tl_last_error());
}

int main(void)
{
	char cmd[300];

	plan(25);
	snprintf(dir, sizeof(dir), "%s/tlreplay-output-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		skip_all("no temporary directory");
		return 0;
	}
	modes();
	whole_or_nothing();
	fallback();
	commit_all();
	mkdirs();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	return tap_failed != 0;
}

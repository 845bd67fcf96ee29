/* SPDX-License-Identifier: MIT */
/* Output files that appear whole or not at all (tlreplay/output.h): O_TMPFILE
 * + linkat where the file system has it, else a hidden name beside the
 * target kept on a list that a signal handler can empty; the mode a new file
 * gets from the umask; mkdir -p. Every writer of the library and the command
 * goes through here, so none keeps its own mkstemp/fchmod/rename. */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tlreplay/output.h>

#include "base/base_internal.h"

/* ------------------------------------------------------------------ mode */

static pthread_once_t mode_once = PTHREAD_ONCE_INIT;
static mode_t new_file_mode = 0644;

/* The umask from /proc/self/status (Linux 4.7+), which reads it without
 * changing it; else umask() set and restored, once, before outputs exist. */
static void mode_read(void)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long m = 0;
	bool found = false;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Umask: %lo", &m) == 1) {
			found = true;
			break;
		}
	if (f)
		fclose(f);
	if (!found) {
		mode_t old = umask(022);

		umask(old);
		m = old;
	}
	new_file_mode = 0666 & ~(mode_t)m;
}

mode_t tl_output_mode(void)
{
	pthread_once(&mode_once, mode_read);
	return new_file_mode;
}

/* ------------------------------------------------------------------ pending */

/* Named temporaries of the fallback, for tl_output_unlink_pending(): a slot
 * holds a heap copy of the name, claimed and emptied atomically, read by a
 * signal handler. */
#define PENDING_SLOTS 64
static char *_Atomic pending[PENDING_SLOTS];

static int pending_add(char *name)
{
	int i;

	for (i = 0; i < PENDING_SLOTS; i++) {
		char *none = NULL;

		if (atomic_compare_exchange_strong(&pending[i], &none, name))
			return i;
	}
	return -1;	/* more at once than slots: still written, not cleaned on a signal */
}

static void pending_del(struct tl_output *o)
{
	if (o->slot >= 0)
		atomic_store(&pending[o->slot], NULL);
	o->slot = -1;
}

/* The signals whose handler calls tl_output_unlink_pending(), held back
 * while a name is made and listed (else one arriving in between would
 * leave it) and while a set of outputs is named (all or none). */
static void hold_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void release_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

void tl_output_unlink_pending(void)
{
	int i;

	for (i = 0; i < PENDING_SLOTS; i++) {
		char *name = atomic_load(&pending[i]);

		if (name)
			unlink(name);
	}
}

/* ------------------------------------------------------------------ files */

/* The directory of @path, in @buf ("." for a bare name). */
static void dir_of(const char *path, char *buf, size_t n)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, n, ".");
	else if (slash == path)
		snprintf(buf, n, "/");
	else
		snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

/* "DIR/.BASE.tmp.XXXXXX" beside @path (the X's for mkstemp or random). */
static char *hidden_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *s = NULL;

	if (asprintf(&s, "%.*s.%s.tmp.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) < 0)
		return NULL;
	return s;
}

/* O_TMPFILE unsupported: by the file system (EOPNOTSUPP), or by a kernel
 * before 3.11, which takes it for O_DIRECTORY (EISDIR) or refuses it. The
 * tests of the fallback force it off with TLREPLAY_TEST_NO_O_TMPFILE. */
static bool no_tmpfile(int err)
{
	return err == EOPNOTSUPP || err == EISDIR || err == EINVAL;
}

int tl_output_open(struct tl_output *o, const char *path)
{
	char dir[PATH_MAX];
	int err = 0;

	*o = (struct tl_output){ .fd = -1, .slot = -1 };
	tl_output_mode();
	if (!(o->path = strdup(path)))
		return tl_err(-ENOMEM, "out of memory");
	dir_of(path, dir, sizeof(dir));
	if (!getenv("TLREPLAY_TEST_NO_O_TMPFILE")) {
		o->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (o->fd >= 0)
			return 0;
		err = errno;
		if (!no_tmpfile(err))
			goto fail;
	}
	/* the fallback: a hidden name, pending until commit or abort */
	if (!(o->tmp = hidden_name(path))) {
		err = ENOMEM;
		goto fail;
	}
	{
		sigset_t old;

		hold_signals(&old);
		o->fd = mkostemp(o->tmp, O_CLOEXEC);
		err = errno;
		if (o->fd >= 0)
			o->slot = pending_add(o->tmp);
		release_signals(&old);
	}
	if (o->fd < 0)
		goto fail;
	return 0;
fail:
	tl_output_abort(o);
	return tl_err(-err, "%s: cannot create: %s", path, strerror(err));
}

int tl_output_write(struct tl_output *o, const void *buf, size_t len)
{
	int err = tl_write_all(o->fd, buf, len);

	return err ? tl_err(err, "%s: write failed: %s", o->path, strerror(-err)) : 0;
}

/* Link the unnamed file of @fd as @path: directly when no file has that
 * name, else under a unique hidden name renamed over it (listed as pending
 * for the instant between the two). */
static int link_into_place(int fd, const char *path)
{
	char proc[64], *tmp = NULL;
	int err = -EEXIST, tries, slot;	/* what 100 names taken would say */
	sigset_t old;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW))
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (!(tmp = hidden_name(path)))
		return -ENOMEM;
	for (tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		char *x = tmp + strlen(tmp) - 6;
		int i;

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
			err = -EIO;
			break;
		}
		for (i = 0; i < 6; i++)
			x[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[r[i] % 36];
		hold_signals(&old);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW)) {
			err = -errno;
			release_signals(&old);
			if (err == -EEXIST)
				continue;
			break;
		}
		slot = pending_add(tmp);
		release_signals(&old);
		err = 0;
		if (rename(tmp, path)) {
			err = -errno;
			unlink(tmp);
		}
		if (slot >= 0)
			atomic_store(&pending[slot], NULL);
		break;
	}
	free(tmp);
	return err;
}

/* What comes before the name: the mode of a new file, the bytes on disk. */
static int finish(struct tl_output *o)
{
	if (o->fd < 0)
		return tl_err(-EBADF, "%s: not open", o->path ? o->path : "output");
	if (fchmod(o->fd, tl_output_mode()) || fsync(o->fd))
		return tl_err(-errno, "%s: cannot put into place: %s", o->path, strerror(errno));
	return 0;
}

/* Give the finished @o its name. */
static int name(struct tl_output *o)
{
	int err;

	if (o->tmp) {
		err = rename(o->tmp, o->path) ? -errno : 0;
		if (!err) {	/* the name is the target's now: nothing to unlink */
			pending_del(o);
			free(o->tmp);
			o->tmp = NULL;
		}
	} else
		err = link_into_place(o->fd, o->path);
	return err ? tl_err(err, "%s: cannot put into place: %s", o->path, strerror(-err)) : 0;
}

int tl_output_commit(struct tl_output *o)
{
	int err = finish(o);

	if (!err)
		err = name(o);
	tl_output_abort(o);
	return err;
}

int tl_output_commit_all(struct tl_output *v, size_t n)
{
	sigset_t old;
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = finish(&v[i]);
	if (!err) {
		/* renames and links only: an instant, a Ctrl-C waits for it */
		hold_signals(&old);
		for (i = 0; i < n && !err; i++)
			err = name(&v[i]);
		release_signals(&old);
	}
	for (i = 0; i < n; i++)
		tl_output_abort(&v[i]);
	return err;
}

void tl_output_abort(struct tl_output *o)
{
	pending_del(o);
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);	/* after a commit's rename, the name is gone: ENOENT */
	free(o->tmp);
	free(o->path);
	*o = (struct tl_output){ .fd = -1, .slot = -1 };
}

/* ------------------------------------------------------------------ directories */

int tl_output_mkdirs(const char *dir)
{
	char buf[PATH_MAX];
	struct stat st;
	size_t i, n = strlen(dir);

	if (n >= sizeof(buf))
		return tl_err(-ENAMETOOLONG, "%s: path too long", dir);
	memcpy(buf, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		buf[i] = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return tl_err(-errno, "cannot make %s: %s", buf, strerror(errno));
		if (stat(buf, &st))
			return tl_err(-errno, "%s: %s", buf, strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return tl_err(-ENOTDIR, "%s: not a directory", buf);
		if (i < n)
			buf[i] = '/';
	}
	return 0;
}

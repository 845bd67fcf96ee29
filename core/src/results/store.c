/* SPDX-License-Identifier: MIT */
/* The results store: a JSON Lines file that many replays append to at once
 * and that must survive a writer being killed or the disk filling up.
 *
 * Appenders serialise on an exclusive flock(2); each record goes out as one
 * write(2) of the whole line (newline last) followed by fsync(2), so a
 * record is either whole or is the unterminated last line of a writer that
 * died mid-write. The next appender cuts such a torn tail under the lock
 * before adding its own line, and an append that fails is truncated away,
 * so the file stays a sequence of whole records. Readers take a shared lock
 * so that they never see an append in progress. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <tlreplay/input.h>
#include <tlreplay/store.h>

#include "base/base_internal.h"
#include "results/results_internal.h"

const char *tl_store_default_path(void)
{
	static _Thread_local char buf[PATH_MAX];
	const char *env = getenv("TLREPLAY_STORE"), *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (env && *env)
		return env;
	if (xdg && *xdg)
		n = snprintf(buf, sizeof(buf), "%s/tlreplay/results.jsonl", xdg);
	else if (home && *home)
		n = snprintf(buf, sizeof(buf), "%s/.local/state/tlreplay/results.jsonl", home);
	else
		return NULL;
	return n > 0 && (size_t)n < sizeof(buf) ? buf : NULL;
}

/* ------------------------------------------------------------------ append */

/* mkdir -p of the directory holding @path. */
static int make_parent_dirs(const char *path)
{
	char *dir = strdup(path), *p;
	int err = 0;

	if (!dir)
		return tl_err(-ENOMEM, "out of memory");
	p = strrchr(dir, '/');
	if (!p || p == dir)
		goto out;
	*p = 0;
	for (p = dir + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		{
			char c = *p;

			*p = 0;
			if (mkdir(dir, 0755) && errno != EEXIST) {
				err = tl_err(-errno, "%s: cannot create directory %s: %s", path, dir,
					     strerror(errno));
				goto out;
			}
			*p = c;
		}
		if (!*p)
			break;
	}
out:
	free(dir);
	return err;
}

/* The record as one line: compact JSON, "v" first when the caller left it
 * out, newline last (so that a line without one was cut short). cJSON
 * escapes control characters, so the text itself holds no newline. */
static char *record_line(const cJSON *rec, size_t *len)
{
	char *txt = cJSON_PrintUnformatted(rec), *line;
	bool add_v = !cJSON_GetObjectItemCaseSensitive(rec, "v");
	size_t n;

	if (!txt)
		return NULL;
	n = strlen(txt);
	line = malloc(n + 32);
	if (!line) {
		free(txt);
		return NULL;
	}
	if (add_v)
		*len = (size_t)sprintf(line, "{\"v\":%d%s%s\n", TL_STORE_VERSION, n > 2 ? "," : "",
				       txt + 1);
	else
		*len = (size_t)sprintf(line, "%s\n", txt);
	free(txt);
	return line;
}

static int lock(int fd, int how)
{
	while (flock(fd, how))
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* The store at @path opened with @flags: a regular file (a FIFO would hang
 * the reader, a device is no store). -errno after tl_err(). */
static int open_store(const char *path, int flags)
{
	struct stat st;
	int fd = open(path, flags | O_CLOEXEC | O_NONBLOCK, 0666);	/* the umask applies */

	if (fd < 0)
		return errno == ENOENT && !(flags & O_CREAT)
		       ? tl_err(-ENOENT, "%s: no results store (nothing has been recorded yet)", path)
		       : tl_err(-errno, "%s: cannot open the results store: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return tl_err(-EINVAL, "%s: not a regular file; a results store is one", path);
	}
	if (fcntl(fd, F_SETFL, flags & O_APPEND)) {	/* O_NONBLOCK off again */
		int e = errno;

		close(fd);
		return tl_err(-e, "%s: %s", path, strerror(e));
	}
	return fd;
}

/* Under the lock: if the file does not end in a newline, a writer died in
 * the middle of its record; cut back to the last whole line. *size gets the
 * length of the file of whole records. */
static int cut_torn_tail(int fd, const char *path, off_t *size)
{
	struct stat st;
	char buf[65536];
	off_t end, keep = 0;

	if (fstat(fd, &st))
		return tl_err(-errno, "%s: %s", path, strerror(errno));
	*size = st.st_size;
	if (st.st_size == 0)
		return 0;
	if (pread(fd, buf, 1, st.st_size - 1) != 1)
		return tl_err(-EIO, "%s: cannot read its last byte", path);
	if (buf[0] == '\n')
		return 0;
	for (end = st.st_size; end > 0 && !keep;) {
		off_t from = end > (off_t)sizeof(buf) ? end - (off_t)sizeof(buf) : 0;
		ssize_t n = pread(fd, buf, (size_t)(end - from), from);

		if (n != end - from)
			return tl_err(-EIO, "%s: read error looking for its last record", path);
		while (n > 0)
			if (buf[--n] == '\n') {
				keep = from + n + 1;
				break;
			}
		end = from;
	}
	if (ftruncate(fd, keep))
		return tl_err(-errno, "%s: cannot cut the torn last record: %s", path, strerror(errno));
	tl_log(TL_LOG_WARN, "%s: cut off a torn last record (%lld bytes) left by a writer that was killed",
	       path, (long long)(st.st_size - keep));
	*size = keep;
	return 0;
}

/* A new store's directory entry must reach the disk too. */
static void sync_dir_of(const char *path)
{
	char *dir = strdup(path), *slash;
	int fd;

	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

int tl_store_append(const char *path, const cJSON *rec)
{
	char *line = NULL;
	size_t len = 0;
	off_t before = 0;
	int fd = -1, err;

	if (!path || !*path)
		return tl_err(-EINVAL, "no results store path given");
	if (!cJSON_IsObject(rec))
		return tl_err(-EINVAL, "%s: a record must be a JSON object", path);
	line = record_line(rec, &len);
	if (!line)
		return tl_err(-ENOMEM, "%s: out of memory printing a record", path);
	err = make_parent_dirs(path);
	if (err)
		goto out;
	/* read-write: the torn-tail check reads the last bytes */
	fd = open_store(path, O_RDWR | O_CREAT | O_APPEND);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	err = lock(fd, LOCK_EX);
	if (err) {
		err = tl_err(err, "%s: cannot lock the results store: %s", path, strerror(-err));
		goto out;
	}
	err = cut_torn_tail(fd, path, &before);
	if (err)
		goto out;
	err = tl_write_all(fd, line, len);	/* a short write is continued */
	if (!err && fsync(fd))
		err = -errno;
	if (err) {
		/* leave the file as it was: no partial record */
		if (ftruncate(fd, before))
			tl_log(TL_LOG_ERROR, "%s: cannot truncate a failed append: %s", path,
			       strerror(errno));
		err = tl_err(err, "%s: cannot append a record: %s", path, strerror(-err));
		goto out;
	}
	if (before == 0)
		sync_dir_of(path);
out:
	if (fd >= 0)
		close(fd);	/* releases the lock */
	free(line);
	return err;
}

/* ------------------------------------------------------------------ read */

static bool blank(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++, n--;
	return n == 0;
}

/* One line of @f into *@line (NUL-terminated, its newline kept; NUL bytes
 * inside are kept too, for the parser to refuse): its length, 0 at the
 * end, -EFBIG past @max bytes (one record is KB: this is a corrupt store or
 * not one at all), -ENOMEM. */
static ssize_t get_line(FILE *f, char **line, size_t *cap, size_t max)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF) {
		if (n + 2 > *cap) {
			size_t nc = *cap ? 2 * *cap : 4096;
			char *g;

			if (n >= max)
				return -EFBIG;
			if (nc > max + 2)
				nc = max + 2;
			if (!(g = realloc(*line, nc)))
				return -ENOMEM;
			*line = g;
			*cap = nc;
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (n)
		(*line)[n] = 0;
	return (ssize_t)n;
}

int tl_store_read_from(const char *path, uint64_t *pos, tl_store_fn fn, void *ctx, bool *torn)
{
	FILE *f = NULL;
	char *line = NULL, lim[48];
	size_t cap = 0, lineno = 0, max = tl_input_max() > SIZE_MAX - 2 ? SIZE_MAX - 2 : (size_t)tl_input_max();
	struct stat st;
	ssize_t n;
	int fd = -1, rc = 0;

	if (torn)
		*torn = false;
	if (!path || !*path || !fn)
		return tl_err(-EINVAL, "no results store path given");
	fd = open_store(path, O_RDONLY);
	if (fd < 0)
		return fd;
	rc = lock(fd, LOCK_SH);
	if (rc) {
		rc = tl_err(rc, "%s: cannot lock the results store: %s", path, strerror(-rc));
		goto out;
	}
	/* records are only ever appended; a store shorter than where the last
	 * read ended was replaced, and is read whole */
	if (fstat(fd, &st) || (uint64_t)st.st_size < *pos)
		*pos = 0;
	if (*pos && lseek(fd, (off_t)*pos, SEEK_SET) < 0) {
		rc = tl_err(-errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	f = fdopen(fd, "r");
	if (!f) {
		rc = tl_err(-errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
	while ((n = get_line(f, &line, &cap, max)) > 0) {
		const char *end = NULL;
		cJSON *rec;

		lineno++;
		if (line[n - 1] != '\n') {
			/* a writer killed mid-append; the next append cuts it */
			if (torn)
				*torn = true;
			tl_log(TL_LOG_INFO, "%s:%zu: torn last record (no newline) skipped", path,
			       lineno);
			break;
		}
		*pos += (uint64_t)n;	/* a whole record, newline included */
		line[--n] = 0;
		if (blank(line, (size_t)n))
			continue;
		/* length-bounded: a NUL byte inside the line is corruption too */
		rec = cJSON_ParseWithLengthOpts(line, (size_t)n, &end, false);
		if (rec && end)
			while (end < line + n && (*end == ' ' || *end == '\t' || *end == '\r'))
				end++;
		if (!cJSON_IsObject(rec) || end != line + n) {
			cJSON_Delete(rec);
			rc = tl_err(-EBADMSG, "%s:%zu: not a JSON object: the results store is corrupt "
				    "(each line must be one record)", path, lineno);
			goto out;
		}
		rc = fn(rec, lineno, ctx);
		cJSON_Delete(rec);
		if (rc)
			goto out;
	}
	if (n == -EFBIG)
		rc = tl_err(-EFBIG, "%s:%zu: a line of more than %s, the limit for a record (TLREPLAY_MAX_JSON sets "
			    "it): the results store is corrupt", path, lineno + 1, tl_size_str(lim, sizeof(lim), max));
	else if (n < 0)
		rc = tl_err((int)n, "%s: out of memory", path);
	else if (ferror(f))
		rc = tl_err(-EIO, "%s: read error", path);
out:
	free(line);
	if (f)
		fclose(f);	/* releases the lock */
	if (fd >= 0)
		close(fd);
	return rc;
}

int tl_store_read(const char *path, tl_store_fn fn, void *ctx, bool *torn)
{
	uint64_t pos = 0;

	return tl_store_read_from(path, &pos, fn, ctx, torn);
}

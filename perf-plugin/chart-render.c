/* SPDX-License-Identifier: MIT */
/* Output of the sweep chart: the SVG into a temporary file beside the target,
 * renamed over it; for PNG, rsvg-convert (librsvg, found in PATH, run without
 * a shell) converts that SVG into a second temporary file which is renamed
 * instead. A device or FIFO target (/dev/stdout) is written in place:
 * renaming over it would replace the device. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chart-svg.h"
#include "cli.h"

extern char **environ;

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

/* @prog in $PATH (empty entries skipped: never the current directory);
 * malloc'ed, NULL when it is not there. */
static char *find_in_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *end;
	char *cand = NULL;
	struct stat st;

	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		if (end == p)
			continue;
		if (asprintf(&cand, "%.*s/%s", (int)(end - p), p, prog) < 0)
			return NULL;
		if (!stat(cand, &st) && S_ISREG(st.st_mode) && !access(cand, X_OK))
			return cand;
		free(cand);
		cand = NULL;
	}
	return NULL;
}

/* A new file beside @path, "PATH.tmp.XXXXXX@suffix", mode 0644, holding
 * @len bytes of @data (none when @data is NULL). Returns its name
 * (malloc'ed), or NULL after cli_error(). */
static char *temp_file(const char *path, const char *suffix, const char *data, size_t len)
{
	char *name = NULL;
	ssize_t w;
	int fd = -1, e = 0;

	if (asprintf(&name, "%s.tmp.XXXXXX%s", path, suffix) < 0) {
		cli_error("chart: out of memory");
		return NULL;
	}
	fd = mkstemps(name, (int)strlen(suffix));
	if (fd < 0) {
		cli_error("chart: %s: cannot create a file beside it: %s", path, strerror(errno));
		free(name);
		return NULL;
	}
	fchmod(fd, 0644);
	while (data && len && !e) {
		w = write(fd, data, len);
		if (w < 0 && errno != EINTR)
			e = errno;
		else if (w > 0) {
			data += w;
			len -= (size_t)w;
		}
	}
	if (close(fd) && !e)
		e = errno;
	if (e) {
		cli_error("chart: %s: %s", name, strerror(e));
		unlink(name);
		free(name);
		return NULL;
	}
	return name;
}

/* rsvg-convert -f png -o @png @svg. Returns 0, or 1 after cli_error(). */
static int rsvg_convert(const char *prog, const char *svg, const char *png)
{
	char *argv[] = { "rsvg-convert", "-f", "png", "-o", (char *)png, (char *)svg, NULL };
	pid_t pid;
	int st, err;

	err = posix_spawn(&pid, prog, NULL, NULL, argv, environ);
	if (err)
		return cli_error("chart: cannot run %s: %s", prog, strerror(err));
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return cli_error("chart: waiting for rsvg-convert: %s", strerror(errno));
	if (WIFSIGNALED(st))
		return cli_error("chart: rsvg-convert was killed by signal %d", WTERMSIG(st));
	if (WEXITSTATUS(st))
		return cli_error("chart: rsvg-convert failed (exit status %d)", WEXITSTATUS(st));
	return 0;
}

int chart_render(const char *path, const char *svg, size_t len)
{
	char *rsvg = NULL, *tsvg = NULL, *tpng = NULL;
	bool png = ends_with(path, ".png"), in_place = false;
	struct stat st;
	FILE *f;
	int ret = 1;

	if (!png && !ends_with(path, ".svg")) {
		cli_error("chart: %s: the file name must end in .svg or .png", path);
		goto out;
	}
	if (png && !(rsvg = find_in_path("rsvg-convert"))) {
		cli_error("PNG output needs rsvg-convert (apt install librsvg2-bin); .svg works without it");
		goto out;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			cli_error("chart: %s: is a directory", path);
			goto out;
		}
		in_place = true;
	}
	if (in_place && !png) {
		f = fopen(path, "w");
		if (!f || fwrite(svg, 1, len, f) != len || fclose(f)) {
			cli_error("chart: %s: %s", path, strerror(errno));
			goto out;
		}
		ret = 0;
		goto out;
	}
	tsvg = temp_file(path, png ? ".svg" : "", svg, len);
	if (!tsvg)
		goto out;
	if (png) {
		if (!in_place && !(tpng = temp_file(path, "", NULL, 0)))
			goto out;
		if (rsvg_convert(rsvg, tsvg, in_place ? path : tpng))
			goto out;
		if (in_place) {
			ret = 0;
			goto out;
		}
	}
	if (rename(png ? tpng : tsvg, path)) {
		cli_error("chart: %s: %s", path, strerror(errno));
		goto out;
	}
	/* published: nothing left to remove */
	free(png ? tpng : tsvg);
	if (png)
		tpng = NULL;
	else
		tsvg = NULL;
	ret = 0;
out:
	if (tsvg)
		unlink(tsvg);
	if (tpng)
		unlink(tpng);
	free(tsvg);
	free(tpng);
	free(rsvg);
	return ret;
}

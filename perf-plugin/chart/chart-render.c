/* SPDX-License-Identifier: MIT */
/* Output of the charts: the SVG into an output that gets its name when whole
 * (tlreplay/output.h); for PNG, rsvg-convert (librsvg, found in PATH, run
 * without a shell) reads the SVG from a memory file on its stdin and writes
 * the PNG to that output on its stdout, so no named temporary exists. A
 * device or FIFO target (/dev/stdout) is written in place: renaming over it
 * would replace the device. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chart/chart-svg.h"
#include "util/cli.h"

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

/* rsvg-convert -f png, the SVG of @svg_fd on its stdin, the PNG to @png_fd.
 * Returns 0, or 1 after cli_error(). */
static int rsvg_convert(const char *prog, int svg_fd, int png_fd)
{
	char *argv[] = { "rsvg-convert", "-f", "png", NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, err;

	if (posix_spawn_file_actions_init(&fa))
		return cli_error("chart: out of memory");
	err = posix_spawn_file_actions_adddup2(&fa, svg_fd, 0);
	if (!err)
		err = posix_spawn_file_actions_adddup2(&fa, png_fd, 1);
	if (!err)
		err = posix_spawn(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
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

/* All @len bytes of @data to @fd; 0 or -1 with errno set. */
static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t w = write(fd, data, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The SVG in a memory file, at its start; -1 after cli_error(). */
static int svg_memfd(const char *svg, size_t len)
{
	int fd = memfd_create("tlreplay-chart.svg", MFD_CLOEXEC);

	if (fd < 0 || write_all(fd, svg, len) || lseek(fd, 0, SEEK_SET)) {
		cli_error("chart: a memory file for the SVG: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int chart_render(const char *path, const char *svg, size_t len)
{
	struct tl_output out = { .fd = -1, .slot = -1 };
	bool png = ends_with(path, ".png");
	char *rsvg = NULL;
	struct stat st;
	int ret = 1, fd = -1, svg_fd = -1;

	if (cli_check_output(path))
		goto out;
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
		fd = open(path, O_WRONLY | O_CLOEXEC);	/* a device or FIFO: in place */
		if (fd < 0) {
			cli_error("chart: %s: %s", path, strerror(errno));
			goto out;
		}
	} else if (tl_output_open(&out, path)) {
		cli_error("chart: %s", tl_last_error());
		goto out;
	}
	if (png) {
		if ((svg_fd = svg_memfd(svg, len)) < 0 || rsvg_convert(rsvg, svg_fd, fd >= 0 ? fd : out.fd))
			goto out;
	} else if (write_all(fd >= 0 ? fd : out.fd, svg, len)) {
		cli_error("chart: %s: %s", path, strerror(errno));
		goto out;
	}
	if (out.fd >= 0 && tl_output_commit(&out)) {
		cli_error("chart: %s", tl_last_error());
		goto out;
	}
	ret = 0;
out:
	tl_output_abort(&out);
	if (fd >= 0)
		close(fd);
	if (svg_fd >= 0)
		close(svg_fd);
	free(rsvg);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/* The workload side of perf stat --control (perf-control.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/cli.h"
#include "stat/perf-control.h"

#define ACK_TIMEOUT_MS 5000

static bool parse_fd(const char *s, int *fd)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX)
		return false;
	*fd = (int)v;
	return true;
}

static int open_fifo(const char *path, int *fd)
{
	/* O_RDWR, as perf's documentation advises, so that open never blocks
	 * waiting for the other end */
	*fd = open(path, O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return cli_error("perf control fifo %s: %s", path, strerror(errno));
	return 0;
}

/* The --control spec of the perf that started us (perf stat -D -1 --control
 * fifo:ctl,ack -- tlreplay ...), read from its command line, into @buf;
 * false when the parent is not perf or gave none. A relative fifo is made
 * the parent's: /proc/PPID/cwd/PATH. So the line perf's manual shows works
 * as typed, without telling tlreplay the channel a second time. */
static bool parent_control(char *buf, size_t n)
{
	char path[64], cmd[8192];
	const char *a, *end, *spec = NULL, *base;
	pid_t pp = getppid();
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pp);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	len = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	if (len <= 0)
		return false;
	cmd[len] = 0;
	end = cmd + len;
	base = strrchr(cmd, '/');
	base = base ? base + 1 : cmd;
	if (strncmp(base, "perf", 4))
		return false;
	for (a = cmd + strlen(cmd) + 1; a < end && strcmp(a, "--"); a += strlen(a) + 1) {
		if (!strncmp(a, "--control=", 10))
			spec = a + 10;
		else if (!strcmp(a, "--control") && a + strlen(a) + 1 < end)
			spec = a + strlen(a) + 1;
	}
	if (!spec)
		return false;
	if (!strncmp(spec, "fifo:", 5)) {
		/* each relative path from the parent's working directory */
		char ctl[PATH_MAX], cwd[32], *ack;

		snprintf(ctl, sizeof(ctl), "%s", spec + 5);
		ack = strchr(ctl, ',');
		if (ack)
			*ack++ = 0;
		snprintf(cwd, sizeof(cwd), "/proc/%d/cwd/", (int)pp);
		snprintf(buf, n, "fifo:%s%s%s%s%s", ctl[0] == '/' ? "" : cwd, ctl, ack ? "," : "",
			 ack && ack[0] != '/' ? cwd : "", ack ? ack : "");
		return true;
	}
	snprintf(buf, n, "%s", spec);
	return true;
}

int perf_ctl_setup(struct perf_ctl *pc, const char *spec)
{
	const char *cfd = NULL, *afd = NULL, *cfifo = NULL, *afifo = NULL;
	char buf[PATH_MAX * 2 + 16], from_parent[PATH_MAX * 2 + 48], *comma;

	pc->ctl = pc->ack = -1;
	pc->own_fds = false;
	pc->desc[0] = 0;
	if (spec) {
		snprintf(buf, sizeof(buf), "%s", spec);
		comma = strchr(buf, ',');
		if (comma)
			*comma++ = 0;
		if (!strncmp(buf, "fd:", 3)) {
			cfd = buf + 3;
			afd = comma;
		} else if (!strncmp(buf, "fifo:", 5)) {
			cfifo = buf + 5;
			afifo = comma;
		} else {
			return cli_error("--control: '%s' is neither fd:CTL[,ACK] nor fifo:CTL[,ACK]", spec);
		}
	} else if (getenv("PERF_CTL_FD")) {
		cfd = getenv("PERF_CTL_FD");
		afd = getenv("PERF_ACK_FD");
	} else if (getenv("PERF_STAT_CTL_FIFO")) {
		cfifo = getenv("PERF_STAT_CTL_FIFO");
		afifo = getenv("PERF_STAT_ACK_FIFO");
	} else if (parent_control(from_parent, sizeof(from_parent))) {
		return perf_ctl_setup(pc, from_parent);
	} else {
		return 0;
	}
	if (cfd) {
		if (!parse_fd(cfd, &pc->ctl) || (afd && *afd && !parse_fd(afd, &pc->ack)))
			return cli_error("perf control: bad file descriptors '%s%s%s'", cfd, afd ? "," : "",
					 afd ? afd : "");
		if (fcntl(pc->ctl, F_GETFD) < 0 || (pc->ack >= 0 && fcntl(pc->ack, F_GETFD) < 0))
			return cli_error("perf control: fd %d or %d is not open (did perf's --control "
					 "fds reach tlreplay?)", pc->ctl, pc->ack);
		snprintf(pc->desc, sizeof(pc->desc), "fd:%d,%d", pc->ctl, pc->ack);
		return 0;
	}
	pc->own_fds = true;
	if (open_fifo(cfifo, &pc->ctl) || (afifo && *afifo && open_fifo(afifo, &pc->ack))) {
		perf_ctl_close(pc);
		return 1;
	}
	snprintf(pc->desc, sizeof(pc->desc), "fifo:%.40s", cfifo);
	return 0;
}

/* Read the ack: "ack\n" with or without perf's trailing NUL. */
static int wait_ack(struct perf_ctl *pc, const char *cmd)
{
	char buf[16];
	size_t got = 0;

	while (got < sizeof(buf) - 1) {
		struct pollfd p = { .fd = pc->ack, .events = POLLIN };
		int r = poll(&p, 1, ACK_TIMEOUT_MS);
		ssize_t n;

		if (r == 0)
			return cli_error("perf control (%s): no ack to '%s' within %d s", pc->desc, cmd,
					 ACK_TIMEOUT_MS / 1000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return cli_error("perf control (%s): %s", pc->desc, strerror(errno));
		n = read(pc->ack, buf + got, 1);	/* byte by byte: leave the next ack alone */
		if (n <= 0)
			return cli_error("perf control (%s): the ack channel closed", pc->desc);
		if (buf[got] == '\n') {
			buf[got] = 0;
			break;
		}
		if (buf[got] == 0 && got == 0)	/* the NUL after the previous ack */
			continue;
		got++;
	}
	buf[sizeof(buf) - 1] = 0;
	if (strcmp(buf, "ack"))
		return cli_error("perf control (%s): expected 'ack' to '%s', got '%s'", pc->desc, cmd, buf);
	/* perf's trailing NUL, if any, is skipped at the start of the next ack */
	return 0;
}

int perf_ctl_send(struct perf_ctl *pc, const char *cmd)
{
	char line[72];
	int n;

	if (pc->ctl < 0)
		return 0;
	n = snprintf(line, sizeof(line), "%s\n", cmd);
	if (write(pc->ctl, line, (size_t)n) != n)
		return cli_error("perf control (%s): cannot send '%s': %s", pc->desc, cmd, strerror(errno));
	return pc->ack >= 0 ? wait_ack(pc, cmd) : 0;
}

void perf_ctl_close(struct perf_ctl *pc)
{
	if (pc->own_fds) {
		if (pc->ctl >= 0)
			close(pc->ctl);
		if (pc->ack >= 0)
			close(pc->ack);
	}
	pc->ctl = pc->ack = -1;
}

int replay_region_cb(enum tl_region ev, void *ctx)
{
	struct region_hooks *h = ctx;
	struct timespec ts;
	double now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	if (ev == TL_REGION_BEGIN) {
		if (h->begin && h->begin(h->ctx))
			return 1;
		if (h->pc && perf_ctl_send(h->pc, "enable"))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		h->t0 = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
		return 0;
	}
	h->elapsed_s = now - h->t0;
	if (h->pc && perf_ctl_send(h->pc, "disable"))
		return 1;
	return h->end ? h->end(h->ctx) : 0;
}

// SPDX-License-Identifier: MIT
/*
 * SIGBUS on a mapped file (sigbus.h): the faulting address is looked up in
 * /proc/self/maps to name the file, with nothing but async-signal-safe calls
 * (open, read, write, _exit) and a static buffer. A SIGBUS that is not on a
 * mapped file (an unaligned access on some machines) is left to its default
 * action.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <tlreplay/output.h>

#include "util/sigbus.h"
#include "util/child-signals.h"

static char maps[1 << 16];

static void say(const char *s)
{
	ssize_t r = write(2, s, strlen(s));

	(void)r;
}

static uintptr_t hex(const char **p)
{
	uintptr_t v = 0;

	for (;; (*p)++) {
		char c = **p;

		if (c >= '0' && c <= '9')
			v = v * 16 + (uintptr_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uintptr_t)(c - 'a' + 10);
		else
			return v;
	}
}

/* The path of the file mapped at @addr (in the static buffer), or NULL. Reads
 * /proc/self/maps a buffer at a time; a line split between two reads is read
 * again from its start. */
static const char *mapped_file(uintptr_t addr)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	size_t have = 0;
	const char *found = NULL;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n = read(fd, maps + have, sizeof(maps) - 1 - have);
		char *line = maps, *nl;

		if (n <= 0)
			break;
		have += (size_t)n;
		maps[have] = 0;
		while ((nl = strchr(line, '\n'))) {
			const char *p = line, *path;
			uintptr_t lo, hi;

			*nl = 0;
			lo = hex(&p);
			p++;
			hi = hex(&p);
			path = strchr(line, '/');
			if (addr >= lo && addr < hi) {
				found = path;
				goto out;
			}
			line = nl + 1;
		}
		have = strlen(line);
		memmove(maps, line, have);
	}
out:
	close(fd);
	return found;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const char *path = mapped_file((uintptr_t)si->si_addr);

	(void)uc;
	if (!path) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	say("tlreplay: ");
	say(path);
	say(": changed while it was read (truncated or rewritten by another process)\n");
	/* our children go too (a replay worker, record --kill-with-parent's program) */
	child_signals_kill_all(SIGTERM);
	tl_output_unlink_pending();
	_exit(1);
}

void sigbus_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

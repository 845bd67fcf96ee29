/* SPDX-License-Identifier: MIT */
/* perf stat's control protocol, from the workload's side: under
 * `perf stat -D -1 --control fd:CTL,ACK` (or fifo:CTL,ACK) tlreplay writes
 * "enable" just before the timed replay and "disable" just after, so perf
 * counts that region only. The channel comes from --control (perf's
 * syntax), else PERF_CTL_FD/PERF_ACK_FD, else PERF_STAT_CTL_FIFO/
 * PERF_STAT_ACK_FIFO in the environment, else the --control of the perf
 * that started tlreplay (its command line, a relative fifo from its working
 * directory). perf acks each command with
 * "ack\n" and a NUL; both the 4- and the 5-byte forms are accepted. */
#ifndef TLREPLAY_PERF_CONTROL_H
#define TLREPLAY_PERF_CONTROL_H

#include <stdbool.h>

#include <tlreplay/replay.h>

struct perf_ctl {
	int ctl, ack;		/* -1 when absent; ack may be absent (no waiting) */
	bool own_fds;		/* opened from fifo paths: closed by perf_ctl_close */
	char desc[96];		/* "fd:5,6", for messages */
};

/* Set up @pc from @spec ("fd:CTL[,ACK]" or "fifo:CTL[,ACK]"; NULL: the
 * environment). No channel at all is not an error: pc->ctl is -1.
 * Returns 0, or 1 after printing why (a bad spec, a fifo that cannot be opened). */
int perf_ctl_setup(struct perf_ctl *pc, const char *spec);

/* Send @cmd ("enable", "disable") and wait up to 5 s for the ack.
 * Returns 0 (also when there is no channel), or 1 after printing why. */
int perf_ctl_send(struct perf_ctl *pc, const char *cmd);

void perf_ctl_close(struct perf_ctl *pc);

/* What happens at the edges of the timed region of a replay: perf stat's
 * control channel, and the caller's own begin/end (counters). */
struct region_hooks {
	struct perf_ctl *pc;		/* may be NULL */
	int (*begin)(void *ctx);	/* may be NULL; non-zero stops the replay */
	int (*end)(void *ctx);
	void *ctx;
	double elapsed_s;		/* wall time of the last region */
	double t0;
};
/* The tl_region_fn for @hooks (a struct region_hooks). */
int replay_region_cb(enum tl_region ev, void *hooks);

#endif

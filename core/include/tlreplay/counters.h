/* SPDX-License-Identifier: MIT */
/**
 * @file counters.h
 * @brief CPU hardware and software counters with perf_event_open(2), named
 *        and grouped as perf names and groups them, counted on the threads
 *        of another process (the replay worker) around a region.
 *
 * Event lists use perf's syntax: comma-separated events, "{a,b}" groups that
 * are scheduled together, modifiers after ':' (or right after a PMU event's
 * closing '/'): u, k, h (privilege levels), G, H (guest, host), p (precise,
 * up to ppp), I (exclude idle), D (pinned), e (exclusive), W (weak group);
 * P and S are accepted and ignored (they matter to sampling). Then perf's
 * generic names (cycles, instructions, cache-misses, task-clock, page-faults,
 * L1-dcache-load-misses, ...), sysfs PMU events "pmu/event=0x3c,umask=0/" or
 * "pmu/name/", raw "rNNNN", and, when libpfm4 can be loaded at run time, the
 * PMU's own names ("INST_RETIRED.ANY", "inst_retired:any_p:u").
 *
 * Values follow perf stat: with multiplexing (running < enabled) a value is
 * scaled by enabled/running; an event that never ran is "not counted"; an
 * event the kernel or PMU refuses is "not supported" and the others still
 * count.
 *
 * Groups: a member the PMU lacks is left out of its group (NOT_SUPPORTED)
 * and the rest stay grouped. A group that the PMU cannot schedule at once
 * (its members open alone but not together) is NOT_SUPPORTED as a whole,
 * unless it is weak ("{a,b}:W"): then, as perf stat does, its events are
 * opened apart (each its own group) and logged at info level.
 *
 * Privileges, as perf: an event without u/k/h modifiers that the kernel
 * refuses (EACCES) while perf_event_paranoid >= 2 is retried in user space
 * only (exclude_kernel, exclude_hv) and its name gets ":u", as perf shows it;
 * an event that must count the kernel (":k") fails with -EACCES instead.
 *
 * Environment: TLREPLAY_SYSFS_ROOT replaces /sys when looking up PMUs (tests
 * build a fake one); TLREPLAY_LIBPFM names the libpfm4 to dlopen()
 * (default "libpfm.so.4").
 *
 * Ownership: tl_counters_open() returns a set freed by tl_counters_close();
 * strings in struct tl_counter_value belong to the set.
 *
 * Thread-safety: one set must not be used from two threads at once;
 * distinct sets may.
 */
#ifndef TLREPLAY_COUNTERS_H
#define TLREPLAY_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_counters;

/** perf stat's default events (task-clock, context-switches, ... instructions, branches). */
#define TL_COUNTERS_DEFAULT_EVENTS                                                               \
	"task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,"   \
	"branch-misses"

enum tl_counter_status {
	TL_COUNTER_COUNTED = 0,
	TL_COUNTER_NOT_COUNTED,		/**< opened, but never scheduled (running == 0) */
	TL_COUNTER_NOT_SUPPORTED,	/**< the kernel or PMU refused it (ENOENT, EOPNOTSUPP, ...) */
};

/** One event's result after a region (summed over the threads counted). */
struct tl_counter_value {
	/** As the user typed it, modifiers included ("cycles:u"); a group's
	 *  modifiers are appended to each member ("{a,b}:u" gives "a:u", "b:u"),
	 *  and ":u" when perf_event_paranoid narrowed it to user space. */
	const char *name;
	/** "msec" for task-clock/cpu-clock, a sysfs event's .unit ("Joules"), "" for counts */
	const char *unit;
	/** scaled by enabled/running (unless no_scale), then by the event's
	 *  scale: msec for the clocks, a sysfs event's .scale; 0 unless COUNTED */
	double value;
	double raw;		/**< unscaled count (ns for the clocks); 0 unless COUNTED */
	/** summed over the threads (as the counts are): running/enabled is
	 *  the fraction of the time the event was on the PMU */
	uint64_t enabled_ns, running_ns;
	enum tl_counter_status status;
	/** index of the group it was opened in: events with the same index were
	 *  scheduled together (events outside braces and the events of a split
	 *  weak group: a group of their own); -1 for NOT_SUPPORTED */
	int group;
	/** for NOT_SUPPORTED: the reason, e.g. "the PMU does not have this
	 *  event (ENOENT; ...)"; NULL otherwise */
	const char *why;
};

struct tl_counters_opts {
	size_t sz;
	/** Count these threads of process @p pid (all of /proc/PID/task at open
	 *  time, and their children through inherit). 0: the calling process. */
	pid_t pid;
	/** Do not scale multiplexed values (perf stat --no-scale). */
	bool no_scale;
};

/**
 * @brief Parse @p events (NULL: TL_COUNTERS_DEFAULT_EVENTS) and open them,
 *        disabled, on every thread of the process (one descriptor per event
 *        and thread, inherit=1: threads and processes those threads start
 *        after this call are counted too; a thread started between the scan
 *        of /proc/PID/task and the end of this call by a thread not yet
 *        opened is missed, so open while the target is quiet).
 * @return 0; -EINVAL (a syntax error, with its column, or an unknown event
 *         name: tl_last_error() names it and lists up to 3 close names),
 *         -EACCES (perf_event_paranoid forbids counting: the message names
 *         /proc/sys/kernel/perf_event_paranoid, its value and the value needed;
 *         also a process of another user), -ESRCH (no such process, or it
 *         exited meanwhile), -EMFILE (events x threads exceed RLIMIT_NOFILE),
 *         -ENOSYS, -ENOMEM. An event that parses but that the PMU lacks is not
 *         an error: it reads NOT_SUPPORTED.
 */
TL_API int tl_counters_open(const char *events, const struct tl_counters_opts *opts,
			    struct tl_counters **out);

/** Reset and enable every event (the region begins): values read later
 *  count from here, times included, and what threads that exited before
 *  left is not counted. @return 0 or -errno. */
TL_API int tl_counters_enable(struct tl_counters *c);

/** Disable every event (the region ends). @return 0 or -errno. */
TL_API int tl_counters_disable(struct tl_counters *c);

/**
 * @brief Read the values accumulated since the last tl_counters_enable()
 *        (one region; read while enabled, it is the region so far). Before
 *        any enable every supported event reads NOT_COUNTED.
 * @param[out] out array of *n values owned by the set, one per event in the
 *             order typed, valid until the next read or close.
 * @return 0, or -errno when a counter cannot be read (message set).
 */
TL_API int tl_counters_read(struct tl_counters *c, const struct tl_counter_value **out, size_t *n);

/** NULL is accepted. */
TL_API void tl_counters_close(struct tl_counters *c);

/**
 * @brief Whether @p name (one event, without modifiers) is known: a generic
 *        perf name, rNNNN, a sysfs PMU event ("msr/tsc/", or "tsc"), or a
 *        libpfm4 name. Leaves tl_last_error() as it was.
 */
TL_API bool tl_counters_known(const char *name);

/**
 * @brief List the event names tl_counters_open() accepts, one per callback
 *        call, with a one-line description (for `tlreplay stat --list`):
 *        perf's generic names (aliases included), rNNNN, every sysfs PMU
 *        event ("msr/tsc/") and one "pmu/<terms>/" line per PMU naming its
 *        terms, then libpfm4's events for this machine's PMUs (at most 1000).
 *        A call with an empty @p name is a note, not an event: libpfm4 is not
 *        available (and why), or how many libpfm4 events were left out.
 */
TL_API void tl_counters_list(void (*fn)(const char *name, const char *desc, void *ctx), void *ctx);

#ifdef __cplusplus
}
#endif
#endif

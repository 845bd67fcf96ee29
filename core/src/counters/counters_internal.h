/* SPDX-License-Identifier: MIT */
/* counters: hardware and software counters around a region, as perf stat
 * counts them, and the NVML energy counter. The parsed event list
 * (counters_parse.c, counters_list.c), the name resolvers (generic perf names
 * in counters_generic.c, sysfs PMUs in counters_sysfs.c, hybrid CPUs in
 * counters_hybrid.c, libpfm4 in counters_pfm.c, suggestions in
 * counters_suggest.c), the per-thread opening (counters_open.c,
 * counters_system.c) and the set (counters.c); energy.c is the NVML energy
 * counter (tlreplay/energy.h). It depends on base only. Nothing here is
 * exported; the unit tests link the static library and use it directly. */
#ifndef TL_COUNTERS_INTERNAL_H
#define TL_COUNTERS_INTERNAL_H

#include <linux/perf_event.h>
#include <sys/types.h>

#include <tlreplay/counters.h>

#include "base/base_internal.h"

/* A listing callback, as tl_counters_list() takes. */
typedef void (*tl_cnt_list_fn)(const char *name, const char *desc, void *ctx);

/* ------------------------------------------------------------ parsed list */

/* perf's event modifiers (the letters after ':' or after a PMU's '/'). */
struct tl_cnt_mods {
	bool u, k, h;		/* count user / kernel / hypervisor (any given: only those) */
	bool G, H;		/* count guest / host (any given: only those) */
	bool I, D, e, W, S;	/* exclude idle, pinned, exclusive, weak group, (S: ignored) */
	int p;			/* precise level (p repeated, at most 3) */
};

/* One event as parsed: what perf_event_open needs and how to report it. */
struct tl_cnt_ev {
	char *name;			/* as typed, modifiers included (group ones appended) */
	struct perf_event_attr attr;	/* type, config*, exclusions; the rest is set at open */
	double scale;			/* value multiplier: 1e-6 for the clocks, sysfs .scale */
	char *unit;			/* "", "msec", sysfs .unit */
	bool priv_given;		/* u/k/h given: no implicit exclusions at open */
	bool mods_typed;		/* the name ends with perf modifiers (or a PMU's '/') */
	size_t group;			/* index in tl_cnt_list.grp */
};

/* A group as typed: "{a,b}" (braces) or a lone event. */
struct tl_cnt_grp {
	size_t first, n;	/* events [first, first + n) */
	bool braces, weak;	/* typed with braces; :W (may be split when it cannot open) */
};

struct tl_cnt_list {
	TL_VEC(struct tl_cnt_ev) ev;
	TL_VEC(struct tl_cnt_grp) grp;
};

/* Parse perf's event-list syntax. Errors: -EINVAL (syntax error with its
 * column, or unknown event with close names), -ENOMEM. @out is freed on error. */
int tl_cnt_parse(const char *events, struct tl_cnt_list *out);
void tl_cnt_list_free(struct tl_cnt_list *l);

/* Parse @n bytes of modifier letters into @m (added to what it holds).
 * Returns 0, or -EINVAL with *bad the offset of the offending letter. */
int tl_cnt_mods_parse(const char *s, size_t n, struct tl_cnt_mods *m, size_t *bad);
/* Apply @m to @a as perf does (u/k/h and G/H widen what was already counted). */
void tl_cnt_mods_apply(struct perf_event_attr *a, const struct tl_cnt_mods *m);
static inline bool tl_cnt_mods_priv(const struct tl_cnt_mods *m)
{
	return m->u || m->k || m->h;
}

/* ------------------------------------------------------- generic perf names */

/* Look up a perf generic name (hardware, software, hardware cache event).
 * Returns 0 (attr type and config set) or -ENOENT. */
int tl_cnt_generic_lookup(const char *name, struct perf_event_attr *attr);
/* Every generic name (aliases included) with a one-line description. */
void tl_cnt_generic_foreach(tl_cnt_list_fn fn, void *ctx);

/* ------------------------------------------------------------- sysfs PMUs */

/* The sysfs mount point: $TLREPLAY_SYSFS_ROOT (tests build a fake tree
 * there) or "/sys". PMUs are under ROOT/bus/event_source/devices. */
const char *tl_cnt_sysfs_root(void);
/* "pmu/terms/": @terms is the text between the slashes (@tlen bytes).
 * Returns 0, -ENOENT (no such PMU; message set), -EINVAL (bad term; message set). */
int tl_cnt_sysfs_event(const char *pmu, const char *terms, size_t tlen, struct tl_cnt_ev *ev);
/* A bare alias name ("tsc") searched in every PMU's events/ (first PMU in
 * name order). Returns 0 or -ENOENT (no message). */
int tl_cnt_sysfs_alias(const char *name, struct tl_cnt_ev *ev);
/* "pmu/event/" for every alias, with its terms (and unit) as description;
 * then one "pmu/<terms>/" line per PMU naming its format terms. */
void tl_cnt_sysfs_foreach(tl_cnt_list_fn fn, void *ctx);
/* Place @value into the bits of a format spec ("config:0-7,21") in @attr.
 * Returns 0 or -EINVAL (bad spec, or value too wide; message set). */
int tl_cnt_format_apply(const char *spec, uint64_t value, struct perf_event_attr *attr,
			const char *term);

/* A core PMU of a hybrid CPU: "cpu_core", "cpu_atom", and its perf type. */
struct tl_cnt_hpmu {
	char name[32];
	uint32_t type;
};

/* The core PMUs of a hybrid CPU, in name order, at most @max; 0 when the
 * CPU is not hybrid (a plain "cpu" PMU, or fewer than two cpu_* PMUs). */
size_t tl_cnt_sysfs_hybrid(struct tl_cnt_hpmu *out, size_t max);

/* On a hybrid CPU a generic hardware or cache event without a PMU counts
 * only on the first core PMU (the kernel picks it), never while the thread
 * runs on the other kind of core. As perf does, make one event per core PMU
 * ("cpu_atom/cycles/", "cpu_core/cycles/", the PMU's type in config[63:32]);
 * a group becomes one group per core PMU, its other members in the first.
 * No change on other CPUs. Returns 0 or -ENOMEM (@l is then freed). */
int tl_cnt_hybrid_expand(struct tl_cnt_list *l);
/* "cpu_core/cycles/": a generic name inside a hybrid core PMU's slashes.
 * Returns 0 (attr set), -ENOENT (not a hybrid PMU, or not a generic name). */
int tl_cnt_hybrid_pmu_event(const char *pmu, const char *terms, size_t tlen,
			    struct perf_event_attr *attr);

/* --------------------------------------------------------------- libpfm4 */

/* Encode a libpfm4 name ("inst_retired:any_p:u", "INST_RETIRED.ANY") into
 * @attr. *priv is set when the name carries its own u/k/h. Returns 0,
 * -ENOENT (unknown to libpfm4), -ENOTSUP (libpfm4 unavailable). */
int tl_cnt_pfm_encode(const char *name, struct perf_event_attr *attr, bool *priv);
/* NULL when libpfm4 is loaded, else why it is not (static or thread-local). */
const char *tl_cnt_pfm_unavailable(void);
/* The events of the PMUs libpfm4 finds on this machine ("icx::INST_RETIRED"),
 * at most @max; then a note (empty name) if some were left out. */
void tl_cnt_pfm_foreach(tl_cnt_list_fn fn, void *ctx, size_t max);

/* ----------------------------------------------------------- suggestions */

/* Levenshtein distance, ASCII case-insensitive. */
size_t tl_cnt_edit_distance(const char *a, const char *b);
/* Something that lists known names: tl_cnt_generic_foreach, tl_cnt_sysfs_foreach. */
typedef void (*tl_cnt_names_fn)(tl_cnt_list_fn fn, void *ctx);
/* Up to 3 names close to @name among those @src[0..nsrc) list (the first
 * seen wins ties), as "a, b, c" in @buf ("" if none). The callers name the
 * listers, so that the sysfs resolver can suggest names without this file
 * depending on it in turn. */
void tl_cnt_suggest(const char *name, const tl_cnt_names_fn *src, size_t nsrc, char *buf,
		    size_t size);

/* ------------------------------------------------------------ opening */

/* How to open: decided once per tl_counters_open from the system. */
struct tl_cnt_policy {
	int paranoid;		/* /proc/sys/kernel/perf_event_paranoid (2 if unreadable) */
	bool privileged;	/* CAP_PERFMON or CAP_SYS_ADMIN in effect */
};

void tl_cnt_policy_get(struct tl_cnt_policy *p);

/* The threads of @pid (/proc/PID/task). Returns 0, -ESRCH, -EACCES, -ENOMEM. */
int tl_cnt_threads(pid_t pid, pid_t **tids, size_t *n);

/* perf_event_open(2); tests replace it to inject failures. Returns an fd,
 * or -1 with errno set. */
extern int (*tl_cnt_sys_open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			      unsigned long flags);
/* Read groups with PERF_FORMAT_GROUP when the kernel takes it with
 * inherit (true by default; tests clear it to exercise per-event reads). */
extern bool tl_cnt_group_read;

/* Whether an open errno means "this event is not available here" (the
 * event reads NOT_SUPPORTED and the others still count). */
bool tl_cnt_errno_unsupported(int err);
/* A short reason for an unsupported event ("event not supported by the PMU (ENOENT)"). */
const char *tl_cnt_errno_why(int err);
/* The message for EACCES/EPERM: names the sysctl, its value @paranoid and
 * the value needed (2 for user space only, 1 when @kernel is counted).
 * Returns @buf. */
char *tl_cnt_paranoid_msg(char *buf, size_t size, int paranoid, bool privileged,
			  const char *event, pid_t pid, bool kernel, int err);

/* ------------------------------------------------------------ the set */

/* A group as opened: its events are scheduled together on each thread. */
struct tl_cnt_pgroup {
	size_t *ev;		/* indices into the list, leader first */
	size_t n;
	bool group_read;	/* one read with PERF_FORMAT_GROUP, else one per event */
	int *fd;		/* [thread * n + member], -1 where the thread was gone */
};

/* Per event: why it is not counted, and its sums over the threads. */
struct tl_cnt_state {
	char *why;		/* NOT_SUPPORTED when set */
	bool user_only;		/* narrowed to user space as perf does (paranoid >= 2) */
	size_t pgroup;		/* its opened group, when supported */
	uint64_t base[3];	/* value, enabled, running at the last enable */
	uint64_t cur[3];	/* the same, at the last read */
};

struct tl_counters {
	struct tl_cnt_list list;
	struct tl_cnt_state *st;	/* one per list event */
	TL_VEC(struct tl_cnt_pgroup) pg;
	pid_t pid;
	pid_t *tid;
	size_t ntid;
	bool no_scale;
	struct tl_cnt_policy policy;
	struct tl_counter_value *val;	/* what tl_counters_read() hands out */
};

/* Open every event of @c->list on every thread of @c->tid (counters_open.c):
 * plans the groups on one thread (unsupported events, weak groups split),
 * then opens the plan on each thread. Returns 0 or -errno with a message. */
int tl_cnt_open_all(struct tl_counters *c);
/* perf's scaling: @raw * enabled / running when multiplexed (running <
 * enabled) unless @no_scale; 0 when it never ran. */
double tl_cnt_scaled(double raw, uint64_t enabled, uint64_t running, bool no_scale);
/* Close every fd and free the plan. */
void tl_cnt_close_all(struct tl_counters *c);

#endif

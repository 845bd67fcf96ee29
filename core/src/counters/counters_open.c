/* SPDX-License-Identifier: MIT */
/* Opening the parsed events on the threads of a process.
 *
 * First a plan, made on one thread: each group is tried as typed; an event
 * the PMU lacks is marked NOT_SUPPORTED and left out (perf prints
 * <not supported> and counts the rest); a member that opens alone but not
 * in its group means the group cannot be scheduled at once: a weak group
 * ({...}:W) is then split into single events, as perf stat does, and a
 * strong one is NOT_SUPPORTED as a whole (counting its members apart would
 * break the ratios the braces were asked for). An EACCES with
 * perf_event_paranoid >= 2 is retried in user space only, perf's fallback.
 * Then the plan is opened on every thread, with inherit=1 so that threads
 * and processes they start later are counted too. */
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "counters/counters_internal.h"

#define READ_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

static void close_fds(int *fd, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (fd[i] >= 0)
			close(fd[i]);
		fd[i] = -1;
	}
}

static int set_why(struct tl_counters *c, size_t ev, const char *why)
{
	free(c->st[ev].why);
	c->st[ev].why = strdup(why);
	return c->st[ev].why ? 0 : -ENOMEM;
}

/* perf shows an event narrowed to user space with ":u". */
static int mark_user_only(struct tl_counters *c, size_t i)
{
	struct tl_cnt_ev *ev = &c->list.ev.v[i];
	size_t n = strlen(ev->name);
	char *name = malloc(n + 3);

	if (!name)
		return -ENOMEM;
	snprintf(name, n + 3, "%s%su", ev->name, ev->mods_typed ? "" : ":");
	free(ev->name);
	ev->name = name;
	c->st[i].user_only = true;
	tl_log(TL_LOG_INFO, "counters: %s counts user space only (perf_event_paranoid %d)", name,
	       c->policy.paranoid);
	return 0;
}

/* Open event @i on @tid; -errno on failure. */
static int open_one(struct tl_counters *c, size_t i, pid_t tid, int group_fd, bool group_fmt)
{
	struct tl_cnt_ev *ev = &c->list.ev.v[i];
	struct perf_event_attr a = ev->attr;
	int fd, err;

	a.size = sizeof(a);
	/* Only leaders start disabled, as perf does: a member opened disabled
	 * and enabled with its group sometimes never counts (seen with a
	 * task-clock leader on 6.x kernels), and one opened enabled counts
	 * only while its leader does anyway. */
	a.disabled = group_fd < 0;
	a.inherit = 1;
	a.read_format = READ_FORMAT | (group_fmt ? PERF_FORMAT_GROUP : 0);
	fd = tl_cnt_sys_open(&a, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		return fd;
	err = errno;
	if ((err == EACCES || err == EPERM) && !ev->priv_given && !a.exclude_kernel &&
	    c->policy.paranoid >= 2 && !c->policy.privileged) {
		ev->attr.exclude_kernel = 1;
		ev->attr.exclude_hv = 1;
		err = mark_user_only(c, i);
		return err ? err : open_one(c, i, tid, group_fd, group_fmt);
	}
	return -err;
}

/* Open the members of @pg on @tid into @fd. On failure everything is
 * closed and *failed is the member that failed. */
static int open_pgroup(struct tl_counters *c, struct tl_cnt_pgroup *pg, pid_t tid, int *fd,
		       size_t *failed)
{
	size_t m;
	int r;

	for (m = 0; m < pg->n; m++) {
		r = open_one(c, pg->ev[m], tid, m ? fd[0] : -1, pg->group_read && pg->n > 1);
		if (r == -EINVAL && m == 0 && pg->group_read && pg->n > 1) {
			/* kernels that refuse PERF_FORMAT_GROUP with inherit: read
			 * each member, still scheduled as a group */
			r = open_one(c, pg->ev[m], tid, -1, false);
			if (r >= 0) {
				tl_log(TL_LOG_DEBUG, "counters: group reads refused, reading "
				       "members one by one");
				pg->group_read = false;
			}
		}
		if (r < 0) {
			close_fds(fd, m);
			*failed = m;
			return r;
		}
		fd[m] = r;
	}
	return 0;
}

/* ------------------------------------------------------------ errors */

/* A failure that stops tl_counters_open() (not a per-event NOT_SUPPORTED). */
static int fatal(struct tl_counters *c, size_t i, pid_t tid, int err)
{
	char msg[900];
	const struct tl_cnt_ev *ev = &c->list.ev.v[i];
	struct rlimit rl = { 0 };

	switch (err) {
	case -EACCES:
	case -EPERM:
		return tl_err(-EACCES, "%s", tl_cnt_paranoid_msg(msg, sizeof(msg),
				c->policy.paranoid, c->policy.privileged, ev->name, c->pid,
				!ev->attr.exclude_kernel, -err));
	case -EMFILE:
	case -ENFILE:
		getrlimit(RLIMIT_NOFILE, &rl);
		return tl_err(-EMFILE, "too many open files counting %zu event(s) on %zu thread(s), "
			      "one descriptor each (the limit is %llu: raise it with ulimit -n)",
			      c->list.ev.n, c->ntid, (unsigned long long)rl.rlim_cur);
	case -ENOSYS:
		return tl_err(-ENOSYS, "this kernel cannot count (perf_event_open: ENOSYS; "
			      "CONFIG_PERF_EVENTS is off)");
	case -ENOMEM:
		return tl_err(-ENOMEM, "out of memory opening '%s'", ev->name);
	default:
		return tl_err(err, "cannot open '%s' on thread %d: %s", ev->name, (int)tid,
			      strerror(-err));
	}
}

static bool is_unsupported(int err)
{
	return err < 0 && tl_cnt_errno_unsupported(-err);
}

/* ------------------------------------------------------------ the plan */

static int add_pgroup(struct tl_counters *c, const size_t *ev, size_t n)
{
	struct tl_cnt_pgroup pg = { .n = n, .group_read = tl_cnt_group_read };
	size_t i;

	pg.ev = malloc(n * sizeof(*pg.ev));
	if (!pg.ev || tl_vec_push(&c->pg, pg)) {
		free(pg.ev);
		return -ENOMEM;
	}
	memcpy(pg.ev, ev, n * sizeof(*ev));
	for (i = 0; i < n; i++)
		c->st[ev[i]].pgroup = c->pg.n - 1;
	return 0;
}

/* Mark event @i NOT_SUPPORTED for @err, with what its exclusions suggest. */
static int unsupported(struct tl_counters *c, size_t i, int err)
{
	const struct perf_event_attr *a = &c->list.ev.v[i].attr;
	char why[600];

	if (err != EINVAL || !(a->exclude_user || a->exclude_kernel || a->exclude_hv))
		return set_why(c, i, tl_cnt_errno_why(err));
	snprintf(why, sizeof(why), "%s; this PMU may not count user and kernel space apart%s",
		 tl_cnt_errno_why(err), c->st[i].user_only ?
		 " (user space only was asked for because perf_event_paranoid is 2 or more)" :
		 " (try it without u/k modifiers)");
	return set_why(c, i, why);
}

/* "{a,b,c}" for messages. */
static void group_text(const struct tl_counters *c, const size_t *ev, size_t n, char *buf,
		       size_t size)
{
	size_t i, len = 0;

	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "{",
					c->list.ev.v[ev[i]].name);
	if (len < size)
		snprintf(buf + len, size - len, "}");
}

/* The members of @ev that open alone but not together: the whole group is
 * NOT_SUPPORTED (strong) or split into single events (weak). */
static int plan_split(struct tl_counters *c, const size_t *ev, size_t n, bool weak, pid_t tid);

static int plan_events(struct tl_counters *c, size_t *ev, size_t n, bool weak, pid_t tid)
{
	struct tl_cnt_pgroup probe = { .ev = ev, .n = n, .group_read = tl_cnt_group_read };
	int fd[64], err = 0, r;
	size_t bad, i;

	while (n && !err) {
		probe.n = n;
		r = open_pgroup(c, &probe, tid, fd, &bad);
		if (r >= 0) {
			close_fds(fd, n);
			err = add_pgroup(c, ev, n);
			if (!err)
				c->pg.v[c->pg.n - 1].group_read = probe.group_read;
			break;
		}
		if (!is_unsupported(r))
			return r == -ESRCH ? r : fatal(c, ev[bad], tid, r);
		if (bad > 0) {	/* does it open alone? */
			probe.ev = &ev[bad];
			probe.n = 1;
			r = open_pgroup(c, &probe, tid, fd, &i);
			probe.ev = ev;
			if (r >= 0) {
				close_fds(fd, 1);
				return plan_split(c, ev, n, weak, tid);
			}
			if (!is_unsupported(r))
				return r == -ESRCH ? r : fatal(c, ev[bad], tid, r);
		}
		err = unsupported(c, ev[bad], -r);
		memmove(&ev[bad], &ev[bad + 1], (n - bad - 1) * sizeof(*ev));
		n--;
	}
	return err;
}

static int plan_split(struct tl_counters *c, const size_t *ev, size_t n, bool weak, pid_t tid)
{
	char grp[300], why[500];
	size_t i, one;
	int err = 0;

	group_text(c, ev, n, grp, sizeof(grp));
	if (weak)
		tl_log(TL_LOG_INFO, "counters: weak group %s cannot be scheduled at once: "
		       "counting its events apart", grp);
	snprintf(why, sizeof(why), "the PMU cannot count the group %s at once (too few "
		 "counters, conflicting ones, or events of different PMUs); make it a weak group "
		 "({...}:W) to count its events apart", grp);
	for (i = 0; i < n && !err; i++) {
		one = ev[i];
		err = weak ? plan_events(c, &one, 1, false, tid) : set_why(c, ev[i], why);
	}
	return err;
}

/* Plan every typed group on @tid; -ESRCH means that thread is gone. */
static int plan(struct tl_counters *c, pid_t tid)
{
	size_t ev[64], g, i;
	const struct tl_cnt_grp *grp;
	int err = 0;

	for (g = 0; g < c->list.grp.n && !err; g++) {
		grp = &c->list.grp.v[g];
		if (grp->n > TL_ARRAY_SIZE(ev))
			return tl_err(-EINVAL, "a group of %zu events: at most %zu", grp->n,
				      TL_ARRAY_SIZE(ev));
		for (i = 0; i < grp->n; i++)
			ev[i] = grp->first + i;
		err = plan_events(c, ev, grp->n, grp->weak, tid);
	}
	return err;
}

/* Forget a plan (the probe thread went away). */
static void plan_reset(struct tl_counters *c)
{
	size_t i;

	tl_cnt_close_all(c);
	for (i = 0; i < c->list.ev.n; i++) {
		free(c->st[i].why);
		c->st[i].why = NULL;
	}
}

/* ------------------------------------------------------------ threads */

static int open_thread(struct tl_counters *c, size_t t)
{
	struct tl_cnt_pgroup *pg;
	size_t g, bad;
	int r;

	for (g = 0; g < c->pg.n; g++) {
		pg = &c->pg.v[g];
		r = open_pgroup(c, pg, c->tid[t], &pg->fd[t * pg->n], &bad);
		if (r == -ESRCH) {	/* it exited: forget it */
			while (g--)
				close_fds(&c->pg.v[g].fd[t * c->pg.v[g].n], c->pg.v[g].n);
			return 0;
		}
		if (r < 0)
			return fatal(c, pg->ev[bad], c->tid[t], r);
	}
	return 0;
}

static int alloc_fds(struct tl_counters *c)
{
	struct tl_cnt_pgroup *pg;
	size_t g, i;

	for (g = 0; g < c->pg.n; g++) {
		pg = &c->pg.v[g];
		pg->fd = malloc(c->ntid * pg->n * sizeof(*pg->fd));
		if (!pg->fd)
			return -ENOMEM;
		for (i = 0; i < c->ntid * pg->n; i++)
			pg->fd[i] = -1;
	}
	return 0;
}

/* Whether any thread kept its descriptors (the others exited meanwhile). */
static bool any_thread(const struct tl_counters *c)
{
	size_t t;

	if (!c->pg.n)
		return true;	/* nothing opened: nothing to lose */
	for (t = 0; t < c->ntid; t++)
		if (c->pg.v[0].fd[t * c->pg.v[0].n] >= 0)
			return true;
	return false;
}

int tl_cnt_open_all(struct tl_counters *c)
{
	size_t probe = 0, t;
	int err = -ESRCH;

	while (err == -ESRCH && probe < c->ntid) {
		plan_reset(c);
		err = plan(c, c->tid[probe++]);
	}
	if (err == -ESRCH)
		return tl_err(-ESRCH, "process %d exited before its counters could open",
			      (int)c->pid);
	if (!err)
		err = alloc_fds(c);
	for (t = 0; t < c->ntid && !err; t++)
		err = open_thread(c, t);
	if (!err && !any_thread(c))
		err = tl_err(-ESRCH, "process %d exited while its counters were opening",
			     (int)c->pid);
	return err;
}

void tl_cnt_close_all(struct tl_counters *c)
{
	struct tl_cnt_pgroup *pg;
	size_t g;

	for (g = 0; g < c->pg.n; g++) {
		pg = &c->pg.v[g];
		if (pg->fd)
			close_fds(pg->fd, c->ntid * pg->n);
		free(pg->fd);
		free(pg->ev);
	}
	tl_vec_free(&c->pg);
}

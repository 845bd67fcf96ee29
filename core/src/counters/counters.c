/* SPDX-License-Identifier: MIT */
/* The counters API (tlreplay/counters.h): open a parsed event list on the
 * threads of a process, enable and disable it around a region, read the
 * sums over the threads and scale them as perf stat does. */
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "counters/counters_internal.h"

#define PFM_LIST_MAX 1000	/* libpfm4 knows thousands of uncore events */

int tl_counters_open(const char *events, const struct tl_counters_opts *opts,
		     struct tl_counters **out)
{
	struct tl_counters_opts o = { 0 };
	struct tl_counters *c = NULL;
	int err;

	if (!out)
		return tl_err(-EINVAL, "tl_counters_open: no place for the result");
	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (o.pid < 0)
		return tl_err(-EINVAL, "tl_counters_open: bad pid %d", (int)o.pid);
	c = calloc(1, sizeof(*c));
	if (!c)
		return tl_err(-ENOMEM, "out of memory");
	c->pid = o.pid > 0 ? o.pid : getpid();
	c->no_scale = o.no_scale;
	err = tl_cnt_parse(events ? events : TL_COUNTERS_DEFAULT_EVENTS, &c->list);
	if (err == -ENOMEM)
		tl_err(err, "out of memory parsing \"%s\"", events ? events : TL_COUNTERS_DEFAULT_EVENTS);
	if (err)
		goto out;
	c->st = calloc(c->list.ev.n, sizeof(*c->st));
	c->val = calloc(c->list.ev.n, sizeof(*c->val));
	if (!c->st || !c->val) {
		err = tl_err(-ENOMEM, "out of memory");
		goto out;
	}
	tl_cnt_policy_get(&c->policy);
	err = tl_cnt_threads(c->pid, &c->tid, &c->ntid);
	if (!err)
		err = tl_cnt_open_all(c);
out:
	if (err)
		tl_counters_close(c);
	else
		*out = c;
	return err;
}

void tl_counters_close(struct tl_counters *c)
{
	size_t i;

	if (!c)
		return;
	tl_cnt_close_all(c);
	for (i = 0; c->st && i < c->list.ev.n; i++)
		free(c->st[i].why);
	tl_cnt_list_free(&c->list);
	free(c->st);
	free(c->val);
	free(c->tid);
	free(c);
}

/* ------------------------------------------------------------ control */

/* @req on every group leader of every thread, for its whole group (the
 * kernel applies it to the inherited copies too). */
static int ioctl_all(struct tl_counters *c, unsigned long req, const char *what)
{
	struct tl_cnt_pgroup *pg;
	size_t g, t;
	int fd;

	for (g = 0; g < c->pg.n; g++) {
		pg = &c->pg.v[g];
		for (t = 0; t < c->ntid; t++) {
			fd = pg->fd[t * pg->n];
			if (fd >= 0 && ioctl(fd, req, PERF_IOC_FLAG_GROUP) < 0)
				return tl_err(-errno, "cannot %s the counters of thread %d: %s", what,
					      (int)c->tid[t], strerror(errno));
		}
	}
	return 0;
}

static int read_fd(int fd, uint64_t *buf, size_t n)
{
	ssize_t r = read(fd, buf, n * sizeof(*buf));

	if (r < 0)
		return tl_err(-errno, "cannot read a counter: %s", strerror(errno));
	if ((size_t)r != n * sizeof(*buf))
		return tl_err(-EIO, "short read of a counter (%zd bytes, %zu expected)", r,
			      n * sizeof(*buf));
	return 0;
}

static void add3(uint64_t *sum, uint64_t value, uint64_t enabled, uint64_t running)
{
	sum[0] += value;
	sum[1] += enabled;
	sum[2] += running;
}

/* Add one thread's values of @pg to the events' sums. */
static int read_pgroup(struct tl_counters *c, const struct tl_cnt_pgroup *pg, size_t t)
{
	const int *fd = &pg->fd[t * pg->n];
	uint64_t buf[3 + 64];	/* nr, enabled, running, values (groups have <= 64) */
	size_t m;
	int err = 0;

	if (fd[0] < 0)	/* the thread exited before it could be opened */
		return 0;
	if (pg->group_read && pg->n > 1) {
		err = read_fd(fd[0], buf, 3 + pg->n);
		if (!err && buf[0] != pg->n)
			err = tl_err(-EIO, "group read of %llu events, %zu expected",
				     (unsigned long long)buf[0], pg->n);
		for (m = 0; m < pg->n && !err; m++)
			add3(c->st[pg->ev[m]].cur, buf[3 + m], buf[1], buf[2]);
		return err;
	}
	for (m = 0; m < pg->n && !err; m++) {
		err = read_fd(fd[m], buf, 3);
		if (!err)
			add3(c->st[pg->ev[m]].cur, buf[0], buf[1], buf[2]);
	}
	return err;
}

/* Sum every thread's values into st[].cur. */
static int read_all(struct tl_counters *c)
{
	size_t i, g, t;
	int err = 0;

	for (i = 0; i < c->list.ev.n; i++)
		memset(c->st[i].cur, 0, sizeof(c->st[i].cur));
	for (g = 0; g < c->pg.n && !err; g++)
		for (t = 0; t < c->ntid && !err; t++)
			err = read_pgroup(c, &c->pg.v[g], t);
	return err;
}

int tl_counters_enable(struct tl_counters *c)
{
	size_t i;
	int err;

	if (!c)
		return tl_err(-EINVAL, "tl_counters_enable: no counters");
	/* RESET zeroes the counts but neither the enabled/running times nor
	 * what exited inherited threads left: the region is measured from a
	 * snapshot instead, taken just before the events start. */
	err = ioctl_all(c, PERF_EVENT_IOC_RESET, "reset");
	if (!err)
		err = read_all(c);
	for (i = 0; i < c->list.ev.n && !err; i++)
		memcpy(c->st[i].base, c->st[i].cur, sizeof(c->st[i].base));
	return err ? err : ioctl_all(c, PERF_EVENT_IOC_ENABLE, "enable");
}

int tl_counters_disable(struct tl_counters *c)
{
	if (!c)
		return tl_err(-EINVAL, "tl_counters_disable: no counters");
	return ioctl_all(c, PERF_EVENT_IOC_DISABLE, "disable");
}

/* ------------------------------------------------------------ values */

static uint64_t delta(uint64_t now, uint64_t base)
{
	return now > base ? now - base : 0;
}

double tl_cnt_scaled(double raw, uint64_t enabled, uint64_t running, bool no_scale)
{
	if (!running)
		return 0;
	if (!no_scale && running < enabled)
		return raw * (double)enabled / (double)running;
	return raw;
}

/* perf stat's value: scaled by enabled/running when multiplexed, "not
 * counted" when it never ran, then the event's own scale (msec, .scale). */
static void fill_value(const struct tl_counters *c, size_t i, struct tl_counter_value *v)
{
	const struct tl_cnt_ev *ev = &c->list.ev.v[i];
	const struct tl_cnt_state *st = &c->st[i];

	memset(v, 0, sizeof(*v));
	v->name = ev->name;
	v->unit = ev->unit ? ev->unit : "";
	v->group = -1;
	if (st->why) {
		v->status = TL_COUNTER_NOT_SUPPORTED;
		v->why = st->why;
		return;
	}
	v->group = (int)st->pgroup;
	v->enabled_ns = delta(st->cur[1], st->base[1]);
	v->running_ns = delta(st->cur[2], st->base[2]);
	if (!v->running_ns) {
		v->status = TL_COUNTER_NOT_COUNTED;
		return;
	}
	v->raw = (double)delta(st->cur[0], st->base[0]);
	v->value = tl_cnt_scaled(v->raw, v->enabled_ns, v->running_ns, c->no_scale) * ev->scale;
}

int tl_counters_read(struct tl_counters *c, const struct tl_counter_value **out, size_t *n)
{
	size_t i;
	int err;

	if (!c || !out || !n)
		return tl_err(-EINVAL, "tl_counters_read: no counters or no place for the values");
	err = read_all(c);
	if (err)
		return err;
	for (i = 0; i < c->list.ev.n; i++)
		fill_value(c, i, &c->val[i]);
	*out = c->val;
	*n = c->list.ev.n;
	return 0;
}

/* ------------------------------------------------------------ names */

bool tl_counters_known(const char *name)
{
	struct tl_cnt_list l;
	char saved[1024];
	bool known;

	if (!name || !*name || strpbrk(name, ",{}"))
		return false;
	/* a query, not a failure: leave tl_last_error() as it was */
	snprintf(saved, sizeof(saved), "%s", tl_last_error());
	known = tl_cnt_parse(name, &l) == 0;
	tl_cnt_list_free(&l);
	tl_err(0, "%s", saved);
	return known;
}

void tl_counters_list(void (*fn)(const char *name, const char *desc, void *ctx), void *ctx)
{
	const char *nopfm;
	char note[400];

	if (!fn)
		return;
	tl_cnt_generic_foreach(fn, ctx);
	fn("rNNNN", "Raw PMU event: NNNN is the hex config of PERF_TYPE_RAW (r01c2)", ctx);
	tl_cnt_sysfs_foreach(fn, ctx);
	nopfm = tl_cnt_pfm_unavailable();
	if (nopfm) {
		snprintf(note, sizeof(note), "PMU-specific names (INST_RETIRED.ANY) are not "
			 "available: %s", nopfm);
		fn("", note, ctx);
		return;
	}
	tl_cnt_pfm_foreach(fn, ctx, PFM_LIST_MAX);
}

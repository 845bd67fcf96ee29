/* SPDX-License-Identifier: MIT */
/* Reading the inputs of a multi-rank job, several at once: each worker
 * thread takes the next input, loads the trace, reduces it to its rank
 * summary and closes it (or reads a summary file), so memory holds at most
 * `jobs` traces, never all of them. Then ranks are assigned and checked. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ranks/ranks_internal.h"

struct input {
	const char *path;
	struct tl_rank_summary *sum;
	int err;
	char msg[512];
};

struct pool {
	struct input *in;
	size_t n, next, done;
	const struct tl_ranks_opts *opts;
	pthread_mutex_t lock;
};

/* The first bytes of @path, gunzipped when it is gzip. */
static ssize_t peek(const char *path, char *buf, size_t n)
{
	gzFile gz = gzopen(path, "rb");
	int r;

	if (!gz)
		return -1;
	r = gzread(gz, buf, (unsigned)n);
	gzclose(gz);
	return r;
}

static void read_one(struct input *in)
{
	char head[256];
	ssize_t nh = peek(in->path, head, sizeof(head));
	struct tl_trace *tr = NULL;
	int err;

	if (nh > 0 && tl_rank_summary_sniff(head, (size_t)nh)) {
		err = tl_rank_summary_read(in->path, &in->sum);
	} else {
		struct tl_open_opts oo = { .sz = sizeof(oo), .rank = -1 };

		err = tl_trace_open(in->path, &oo, &tr);
		if (!err)
			err = tl_rank_summary_build(tr, NULL, &in->sum);
		tl_trace_close(tr);
	}
	in->err = err;
	if (err)	/* tl_last_error() is per thread: keep it with the input */
		snprintf(in->msg, sizeof(in->msg), "%s", *tl_last_error() ? tl_last_error() : strerror(-err));
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		struct input *in;

		pthread_mutex_lock(&p->lock);
		in = p->next < p->n ? &p->in[p->next++] : NULL;
		pthread_mutex_unlock(&p->lock);
		if (!in)
			break;
		read_one(in);
		pthread_mutex_lock(&p->lock);
		p->done++;
		if (p->opts && p->opts->progress)
			p->opts->progress(p->done, p->n, in->path, in->err, in->err ? in->msg : NULL,
					  p->opts->progress_ctx);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

/* ------------------------------------------------------------------ how many at once */

/* Bytes of memory one input needs while it is read: a plain trace is
 * mapped and its pages dropped behind the parser (about 0.8x the file at
 * the peak, event table included); a gzipped one is inflated into memory
 * (1.4x the JSON text, whose size the gzip trailer gives modulo 4 GiB). */
static uint64_t mem_need(const char *path)
{
	struct stat st;
	unsigned char m[2], t[4];
	uint64_t need;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	need = (uint64_t)st.st_size * 8 / 10;
	if (pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b && st.st_size > 18 &&
	    pread(fd, t, 4, st.st_size - 4) == 4) {
		uint64_t isize = (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 |
				 (uint64_t)t[3] << 24;

		while (isize < (uint64_t)st.st_size)	/* past 4 GiB the trailer wraps */
			isize += 1ULL << 32;
		need = isize * 14 / 10;
	}
	close(fd);
	return need;
}

static uint64_t mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

/* The cores, fewer when the largest inputs read together would not fit in
 * half the available memory. */
static unsigned auto_jobs(const char *const *paths, size_t n)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t avail = mem_available(), *need, sum = 0;
	unsigned jobs = ncpu > 0 ? (unsigned)ncpu : 1, k;
	size_t i;

	if (jobs > n)
		jobs = (unsigned)n;
	if (!avail || jobs <= 1)
		return jobs ? jobs : 1;
	need = malloc(n * sizeof(*need));
	if (!need)
		return 1;
	for (i = 0; i < n; i++)
		need[i] = mem_need(paths[i]);
	tl_qsort(need, n, sizeof(*need), cmp_u64_desc);
	for (k = 0; k < jobs; k++) {
		sum += need[k];
		if (k && sum > avail / 2)
			break;
	}
	free(need);
	return k ? k : 1;
}

/* ------------------------------------------------------------------ ranks */

static int cmp_rank(const void *a, const void *b)
{
	const struct tl_rank_summary *x = *(struct tl_rank_summary *const *)a;
	const struct tl_rank_summary *y = *(struct tl_rank_summary *const *)b;

	return (x->info.rank > y->info.rank) - (x->info.rank < y->info.rank);
}

/* Inputs without a rank get the lowest free numbers, in input order; then
 * the set is sorted and two inputs with one rank are an error. */
static int assign_ranks(struct tl_rankset *set)
{
	size_t i;
	int next = 0;

	for (i = 0; i < set->n; i++) {
		struct tl_rank_summary *s = set->v[i];
		size_t j;
		bool used;

		if (s->info.rank >= 0)
			continue;
		do {
			used = false;
			for (j = 0; j < set->n && !used; j++)
				used = set->v[j]->info.rank == next;
			if (used)
				next++;
		} while (used);
		s->info.rank = next++;
		s->info.rank_from = TL_RANK_FROM_ORDER;
	}
	tl_qsort(set->v, set->n, sizeof(*set->v), cmp_rank);
	for (i = 1; i < set->n; i++) {
		const struct tl_rank_info *a = &set->v[i - 1]->info, *b = &set->v[i]->info;

		if (a->rank == b->rank)
			return tl_err(-EEXIST, "rank %d twice: %s (from its %s) and %s (from its %s)", a->rank,
				      a->file, tl_rank_source_name(a->rank_from), b->file,
				      tl_rank_source_name(b->rank_from));
	}
	return 0;
}

void tl_rankset_free(struct tl_rankset *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->n; i++)
		tl_rank_summary_free(set->v[i]);
	free(set->v);
	free(set);
}

size_t tl_rankset_n(const struct tl_rankset *set)
{
	return set->n;
}

const struct tl_rank_summary *tl_rankset_get(const struct tl_rankset *set, size_t i)
{
	return i < set->n ? set->v[i] : NULL;
}

unsigned tl_rankset_jobs(const struct tl_rankset *set)
{
	return set->jobs;
}

int tl_ranks_open(const char *const *paths, size_t n, const struct tl_ranks_opts *opts,
		  struct tl_rankset **out)
{
	struct pool p = { .n = n, .opts = opts };
	struct tl_rankset *set = NULL;
	pthread_t *th = NULL;
	unsigned jobs = opts && opts->jobs ? opts->jobs : 0, started = 0, k;
	bool keep_going = opts && opts->keep_going;
	size_t i;
	int err = 0;

	*out = NULL;
	if (!n)
		return tl_err(-ENODATA, "no input");
	if (!jobs)
		jobs = auto_jobs(paths, n);
	if (jobs > n)
		jobs = (unsigned)n;
	p.in = calloc(n, sizeof(*p.in));
	th = calloc(jobs, sizeof(*th));
	set = calloc(1, sizeof(*set));
	if (!p.in || !th || !set || pthread_mutex_init(&p.lock, NULL)) {
		free(p.in);
		free(th);
		free(set);
		return tl_err(-ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		p.in[i].path = paths[i];
	/* the calling thread is one of the workers */
	for (k = 1; k < jobs; k++) {
		if (pthread_create(&th[k], NULL, worker, &p))
			break;
		started++;
	}
	worker(&p);
	for (k = 1; k <= started; k++)
		pthread_join(th[k], NULL);
	pthread_mutex_destroy(&p.lock);
	set->jobs = started + 1;

	set->v = calloc(n, sizeof(*set->v));
	if (!set->v) {
		err = tl_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct input *in = &p.in[i];

		if (in->err) {
			if (keep_going)
				continue;
			if (!err)
				err = tl_err(in->err, "%s", in->msg);
			continue;
		}
		set->v[set->n++] = in->sum;
		in->sum = NULL;
	}
	if (!err && !set->n)
		err = tl_err(-ENODATA, "no input could be read");
	if (!err)
		err = assign_ranks(set);
out:
	for (i = 0; i < n; i++)
		tl_rank_summary_free(p.in[i].sum);
	free(p.in);
	free(th);
	if (err) {
		tl_rankset_free(set);
		return err;
	}
	*out = set;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Event kinds for XProf traces. XProf's JSON (ours from an .xplane.pb, or
 * XProf's own export) has no categories: what an event is follows from the
 * process and thread it is on, which is how TraceLens reads JAX traces
 * (TraceEventUtils.get_event_category, JaxGPUEventAnalyser):
 *  - a process whose name holds "/device:GPU" is a GPU; its threads named
 *    "Stream #..." are its streams, and their events are GPU work: memcpy
 *    when the name starts with copy, memcpy or memset (any case; TraceLens
 *    counts memsets as memcpy in JAX traces), kernels otherwise;
 *  - on the host ("/host:CPU"), an event carrying a correlation_id is the
 *    launch (runtime call) of the GPU work with that id;
 *  - threads named "Framework Name Scope" or holding "py_xla" hold cpu_ops;
 *  - everything else (XLA Ops and Modules lines, python tracer, ...) stays
 *    "other".
 * GPU events get device = pid - 1 (XProf's pid is plane id + 1) and stream =
 * the N of "Stream #N". */
#include <cjson/cJSON.h>
#include <stdio.h>

#include "trace/trace_internal.h"

enum {
	PROC_GPU = 1,
	PROC_HOST = 2,
};

enum {
	THR_STREAM = 1,
	THR_CPU_OP = 2,
};

/* A thread's class is read from its name, but "Stream #N" counts only on a
 * GPU process, whose name may come later in the file: each thread_name is
 * kept in two views, as it reads on a GPU process and on any other (the
 * latter's keys offset by this), and the process picks one at the end. */
#define OTHER_VIEW (1ULL << 32)

/* The class of thread @name ("Stream #N" with N above the class bits) on a
 * GPU process or (@gpu false) on another; 0 when it has none. */
static uint32_t thread_class(const char *name, bool gpu)
{
	if (gpu && !strncmp(name, "Stream #", 8)) {
		char *end;
		long s = strtol(name + 8, &end, 10);

		/* the stream number rides above the class bits */
		return THR_STREAM | (end > name + 8 && s >= 0 && s < (1L << 24) ? (uint32_t)(s + 1) << 4 : 0);
	}
	if (!strcmp(name, "Framework Name Scope") || strstr(name, "py_xla"))
		return THR_CPU_OP;
	return 0;
}

/* The integer value of top-level key @key in an args object (a number, or a
 * string of digits as XProf writes integers past 2^53). */
static bool args_int(const char *a, size_t len, const char *key, int64_t *out)
{
	const char *p, *e;
	size_t klen = strlen(key);
	struct js_err err;

	if (!a || !len || *a != '{')
		return false;
	e = a + len;
	p = js_ws(a + 1, e);
	while (p < e && *p == '"') {
		const char *k, *q;
		size_t kl;
		bool esc = false, match;

		q = js_key(p, e, &k, &kl, &esc, &err);
		if (!q)
			return false;
		match = !esc && kl == klen && !memcmp(k, key, klen);
		p = js_ws(q, e);
		if (match) {
			double d;
			int64_t iv = 0;
			bool is_int = false;
			const char *s = p, *t = e;

			if (p < e && *p == '"') {
				s = p + 1;
				t = js_string_end(s, e, &esc, &err);
				if (!t)
					return false;
				t--;
			}
			q = js_number(s, t, &d, &iv, &is_int, &err);
			if (!q || !is_int || (*p == '"' && q != t))
				return false;
			*out = iv;
			return true;
		}
		p = js_skip_value(p, e, &err);
		if (!p)
			return false;
		p = js_ws(p, e);
		if (p < e && *p == ',')
			p = js_ws(p + 1, e);
	}
	return false;
}

static bool copy_like(const char *s)
{
	static const char *const pfx[] = { "copy", "memcpy", "memset" };
	size_t i, k;

	for (i = 0; i < TL_ARRAY_SIZE(pfx); i++) {
		for (k = 0; pfx[i][k]; k++)
			if ((s[k] | 0x20) != pfx[i][k])
				break;
		if (!pfx[i][k])
			return true;
	}
	return false;
}

/* A decimal token ("8", "\"8\"") as a number, -1 if it is none. */
static long tok_number(const struct tl_trace *tr, uint32_t tok)
{
	const char *s = tl_tok_display_c(tr, tok);
	char *end;
	long v;

	if (!*s)
		return -1;
	v = strtol(s, &end, 10);
	return *end || v < 0 ? -1 : v;
}

/* tl_kmap_put(), the map made on first use: Kineto traces, the most, never
 * put anything. */
static int put(struct tl_kmap *m, size_t expected, uint64_t k1, int64_t k2, uint32_t val)
{
	if (!m->nslots && tl_kmap_init(m, expected))
		return -ENOMEM;
	return tl_kmap_put(m, k1, k2, val);
}

int tl_xplane_classify(struct tl_trace *tr)
{
	const uint32_t id_proc = tl_strtab_find(&tr->strs, "process_name", 12);
	const uint32_t id_thread = tl_strtab_find(&tr->strs, "thread_name", 11);
	struct tl_kmap procs = { 0 }, threads = { 0 };
	size_t i;
	bool any = false;
	int err = 0;
	char name[256];

	/* One pass over the metadata; a Kineto category ends it: not XProf. */
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		uint32_t f = 0, t;

		if (e->kind != TL_KIND_OTHER && e->kind != TL_KIND_METADATA)
			goto out;
		if (e->kind != TL_KIND_METADATA || !e->pid || (e->name != id_proc && e->name != id_thread))
			continue;
		if (e->name == id_thread && !e->tid)
			continue;
		if (!tl_meta_name(tr, e, name, sizeof(name)))
			continue;
		if (e->name == id_proc) {
			if (strstr(name, "/device:GPU"))
				f = PROC_GPU;
			else if (strstr(name, "/host:CPU"))
				f = PROC_HOST;
			if (f && put(&procs, 64, 0, e->pid, f))
				goto nomem;
			any |= f != 0;
			continue;
		}
		if ((t = thread_class(name, true)) && put(&threads, 256, e->pid, e->tid, t))
			goto nomem;
		if ((t = thread_class(name, false)) && put(&threads, 256, e->pid | OTHER_VIEW, e->tid, t))
			goto nomem;
	}
	if (!any)
		goto out;
	for (i = 0; i < tr->nev; i++) {
		struct tl_ev *e = &tr->ev[i];
		uint32_t pf = 0, t = 0;
		size_t alen;
		const char *a;
		int64_t corr;
		bool has_corr = false;
		long pid;

		if (e->ph != 'X' || e->kind != TL_KIND_OTHER)
			continue;
		tl_kmap_get(&procs, 0, e->pid, &pf);
		tl_kmap_get(&threads, (pf & PROC_GPU) ? e->pid : e->pid | OTHER_VIEW, e->tid, &t);
		a = tl_ev_args(tr, e, &alen);
		if ((pf & PROC_GPU) && (t & 3) == THR_STREAM) {
			e->kind = copy_like(tl_strtab_get(&tr->strs, e->name)) ? TL_KIND_MEMCPY
									      : TL_KIND_KERNEL;
			pid = tok_number(tr, e->pid);
			if (pid >= TL_XP_FIRST_DEVICE_PID && pid <= TL_XP_LAST_DEVICE_PID) {
				e->device = (int32_t)(pid - TL_XP_FIRST_DEVICE_PID);
				e->flags |= EV_HAS_DEVICE;
			}
			if (t >> 4) {
				e->stream = (int32_t)((t >> 4) - 1);
				e->flags |= EV_HAS_STREAM;
			}
		} else if ((pf & PROC_HOST) && (has_corr = args_int(a, alen, "correlation_id", &corr))) {
			e->kind = TL_KIND_RUNTIME;
		} else if ((t & 3) == THR_CPU_OP) {
			e->kind = TL_KIND_CPU_OP;
			continue;
		} else {
			continue;
		}
		if (!has_corr && !args_int(a, alen, "correlation_id", &corr))	/* a GPU event's */
			continue;
		/* The launch and its GPU work share the correlation id. XProf has no
		 * External id; giving it the same value lets the linker pair them
		 * whichever key it settles on (it looks for launch-named runtime
		 * calls, which older JAX traces name after the kernel). */
		if (tl_ev_set_corr(tr, e, corr) || tl_ev_set_extid(tr, e, corr))
			goto nomem;
		e->flags |= EV_HAS_CORR | EV_CORR_KEY | EV_HAS_EXTID;
	}
	tr->xprof = true;
	goto out;
nomem:
	err = tl_err(-ENOMEM, "%s: out of memory", tr->path);
out:
	tl_kmap_free(&procs);
	tl_kmap_free(&threads);
	return err;
}

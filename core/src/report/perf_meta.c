/* SPDX-License-Identifier: MIT */
/* Process and thread names of the trace's metadata events, as TraceLens puts
 * them beside each perf-model row (process_name, process_label, thread_name;
 * "Unknown" where the trace names none). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/report_internal.h"

struct meta_ent {
	char *pid, *tid;	/* tid NULL: a process entry */
	char *name, *label;
};

struct rpt_meta {
	size_t n;
	struct meta_ent *v;
};

static const char *unknown = "Unknown";

static struct meta_ent *find(struct rpt_meta *m, const char *pid, const char *tid, bool add)
{
	struct meta_ent *v;
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].pid, pid) && (tid ? m->v[i].tid && !strcmp(m->v[i].tid, tid)
						      : !m->v[i].tid))
			return &m->v[i];
	if (!add)
		return NULL;
	v = realloc(m->v, (m->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	m->v = v;
	v = &m->v[m->n];
	memset(v, 0, sizeof(*v));
	v->pid = strdup(pid);
	v->tid = tid ? strdup(tid) : NULL;
	if (!v->pid || (tid && !v->tid)) {
		free(v->pid);
		free(v->tid);
		return NULL;
	}
	m->n++;
	return v;
}

/* One metadata event: args.name of process_name / thread_name, args.labels
 * of process_labels. */
static int take(struct rpt_meta *m, const struct tl_trace *tr, const struct tl_event_info *e)
{
	bool thread = !strcmp(e->name, "thread_name"), label = !strcmp(e->name, "process_labels");
	const cJSON *v;
	cJSON *args = NULL;
	struct meta_ent *ent;
	char **slot;
	int err = 0;

	if (!thread && !label && strcmp(e->name, "process_name"))
		return 0;
	if (tl_trace_event_args(tr, e->uid, &args) || !args)
		return 0;
	v = cJSON_GetObjectItemCaseSensitive(args, label ? "labels" : "name");
	if (!cJSON_IsString(v))
		goto out;
	err = -ENOMEM;
	ent = find(m, e->pid, thread ? e->tid : NULL, true);
	if (!ent)
		goto out;
	slot = label ? &ent->label : &ent->name;
	free(*slot);
	*slot = strdup(v->valuestring);
	if (*slot)
		err = 0;
out:
	cJSON_Delete(args);
	return err;
}

int rpt_meta_load(const struct tl_trace *tr, struct rpt_meta **out)
{
	uint64_t uid, n = tl_trace_nevents(tr);
	struct rpt_meta *m = calloc(1, sizeof(*m));
	int err = 0;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	for (uid = 0; uid < n && !err; uid++) {
		struct tl_event_info e;

		if (!tl_trace_event(tr, uid, &e) && e.kind == TL_KIND_METADATA)
			err = take(m, tr, &e);
	}
	if (err) {
		rpt_meta_free(m);
		return err;
	}
	*out = m;
	return 0;
}

void rpt_meta_names(struct rpt_meta *m, const char *pid, const char *tid, const char **pname,
		    const char **plabel, const char **tname)
{
	const struct meta_ent *p = find(m, pid, NULL, false), *t = find(m, pid, tid, false);

	*pname = p && p->name ? p->name : unknown;
	*plabel = p && p->label ? p->label : unknown;
	*tname = t && t->name ? t->name : unknown;
}

void rpt_meta_free(struct rpt_meta *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->v[i].pid);
		free(m->v[i].tid);
		free(m->v[i].name);
		free(m->v[i].label);
	}
	free(m->v);
	free(m);
}

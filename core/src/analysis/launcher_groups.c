/* SPDX-License-Identifier: MIT */
/* Kernel launchers grouped by their recorded arguments (TraceLens's
 * ops_unique_args sheet; the "--launchers --unique" selection of replay IR):
 * one group per distinct (name, op category, Input Dims, Input type,
 * Input Strides, Concrete Inputs), and per (pid, tid) when asked, which is
 * TraceLens's process_name/process_label/thread_name split. A field the
 * launcher did not record is its own key value: TraceLens groups by the str()
 * of each column with dropna=False, so a missing field is the string 'None'
 * there, and a launcher with no args at all (cudaGraphLaunch, hipGraphLaunch,
 * cudaLaunchKernel used as the launcher) makes a group of its name. */

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

#define KEY_SEP '\x1f'	/* never in JSON text or event names */
#define KEY_PARTS 8

/* The set with the arena its strings live in. */
struct group_set {
	struct tl_launcher_group_set pub;
	struct tl_arena arena;
};

static const char *const arg_keys[4] = { "Input Dims", "Input type", "Input Strides",
					 "Concrete Inputs" };

/* pandas' aggregates of one column: sample std, NaN for a single value. */
static void agg(double *v, size_t n, struct tl_time_agg *a)
{
	struct tl_agg t;

	tl_aggregate(v, n, &t);
	*a = (struct tl_time_agg){ .sum = t.sum, .mean = t.mean, .median = t.median, .std = t.std,
				   .min = t.min, .max = t.max };
}

static int cmp_group(const void *a, const void *b)
{
	const struct tl_launcher_group *x = a, *y = b;

	if (x->direct.sum != y->direct.sum)
		return x->direct.sum > y->direct.sum ? -1 : 1;
	return (x->ex_uid > y->ex_uid) - (x->ex_uid < y->ex_uid);
}

/* The grouping key of launcher @l into @key. The recorded fields are
 * written as cJSON_PrintUnformatted() would, into the key directly; a field
 * not recorded is empty, which no recorded one is (its JSON has at least two
 * characters). */
static int launcher_key(struct tl_trace *tr, const struct tl_launcher *l, bool by_thread, void *keyp)
{
	TL_VEC(char) *key = keyp;
	const struct tl_ev *e = &tr->ev[l->uid];
	const char *head[4];
	const cJSON *f[4];
	cJSON *args = NULL;
	size_t k;
	int err;

	err = tl_trace_event_args(tr, l->uid, &args);
	if (err == -ENOMEM)
		return err;
	/* unparsable args: as if none were recorded */
	for (k = 0; k < 4; k++)
		f[k] = err ? NULL : cJSON_GetObjectItemCaseSensitive(args, arg_keys[k]);
	err = 0;
	head[0] = tl_ev_name(tr, e);
	head[1] = l->category ? l->category : "";
	head[2] = by_thread ? tl_tok_display(tr, e->pid) : "";
	head[3] = by_thread ? tl_tok_display(tr, e->tid) : "";
	key->n = 0;
	for (k = 0; k < KEY_PARTS && !err; k++) {
		size_t m = k < 4 ? strlen(head[k]) : 0;

		if (tl_grow((void **)&key->v, &key->cap, key->n + m + 2, 1)) {
			err = -ENOMEM;
			break;
		}
		if (k < 4) {
			memcpy(key->v + key->n, head[k], m);
			key->n += m;
		} else if (f[k - 4]) {
			err = tl_json_compact(f[k - 4], &key->v, &key->n, &key->cap);
			if (err || tl_grow((void **)&key->v, &key->cap, key->n + 2, 1)) {
				err = -ENOMEM;
				break;
			}
		}
		key->v[key->n++] = KEY_SEP;
	}
	cJSON_Delete(args);
	return err;
}

/* Fill group @g from its key text and its members' launchers. */
static int fill_group(struct group_set *set, struct tl_launcher_group *g,
		      const char *key, size_t keylen, const struct tl_launcher_set *ls,
		      const uint32_t *members, size_t n, double *tmp)
{
	char *txt = tl_arena_strndup(&set->arena, key, keylen), *p;
	const char **dst[KEY_PARTS] = { &g->name, &g->category, &g->pid, &g->tid, &g->input_dims,
				       &g->input_type, &g->input_strides, &g->concrete_inputs };
	size_t k;

	g->uids = tl_arena_alloc(&set->arena, n * sizeof(*g->uids), sizeof(uint64_t));
	if (!txt || !g->uids)
		return -ENOMEM;
	for (k = 0, p = txt; k < KEY_PARTS; k++) {
		char *sep = strchr(p, KEY_SEP);

		*dst[k] = p;
		if (sep) {
			*sep = 0;
			p = sep + 1;
		}
	}
	g->count = n;
	for (k = 0; k < n; k++)
		g->uids[k] = ls->v[members[k]].uid;
	g->ex_uid = g->uids[0];	/* members are in launch (ts) order */
	for (k = 0; k < n; k++)
		tmp[k] = ls->v[members[k]].direct_us;
	agg(tmp, n, &g->direct);
	for (k = 0; k < n; k++)
		tmp[k] = ls->v[members[k]].subtree_us;
	agg(tmp, n, &g->subtree);
	return 0;
}

int tl_launcher_groups(struct tl_trace *tr, const struct tl_launcher_group_opts *opts,
		       struct tl_launcher_group_set **out)
{
	struct tl_launcher_group_opts o = { 0 };
	struct tl_launcher_opts lo = { .sz = sizeof(lo) };
	struct tl_launcher_set *ls = NULL;
	struct group_set *set = NULL;
	struct tl_strtab keys;
	TL_VEC(char) key = { 0 };
	uint32_t *key_of = NULL, *members = NULL; /* by launcher: its key's id */
	size_t *start = NULL, *pos = NULL, i, ng;
	double *tmp = NULL;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	lo.include_nccl = o.include_nccl;
	/* the tree as it is (python functions do not change who launched
	 * what): rebuilding it would pull it from under other readers */
	lo.with_python = tr->tree.built && tr->tree.with_python;
	if (tl_strtab_init(&keys))
		return tl_err(-ENOMEM, "out of memory grouping launchers");
	err = tl_launchers(tr, &lo, &ls);
	if (err)
		goto out;
	set = calloc(1, sizeof(*set));
	key_of = calloc(ls->n + 1, sizeof(*key_of));
	members = malloc((ls->n + 1) * sizeof(*members));
	tmp = malloc((ls->n + 1) * sizeof(*tmp));
	if (!set || !key_of || !members || !tmp)
		goto nomem;
	tl_arena_init(&set->arena, 1 << 16);
	if (!o.by_thread || !(err = tl_trace_prepare_display(tr)))
		for (i = 0; i < ls->n; i++) {
			set->pub.total_direct_us += ls->v[i].direct_us;
			err = launcher_key(tr, &ls->v[i], o.by_thread, &key);
			if (err)
				break;
			key_of[i] = tl_strtab_intern(&keys, key.v, key.n);
			if (key_of[i] == UINT32_MAX)
				goto nomem;
		}
	if (err)
		goto out;

	/* members of each group in launcher order: counting sort on key id */
	ng = keys.n - 1;	/* id 0 is the empty string, never a key */
	start = calloc(ng + 2, sizeof(*start));
	pos = malloc((ng + 2) * sizeof(*pos));
	set->pub.v = calloc(ng + 1, sizeof(*set->pub.v));
	if (!start || !pos || !set->pub.v)
		goto nomem;
	for (i = 0; i < ls->n; i++)
		start[key_of[i]]++;
	for (i = 1; i <= ng + 1; i++)
		start[i] += start[i - 1];	/* start[id] = end of group id-1's members */
	memcpy(pos, start, (ng + 2) * sizeof(*pos));
	for (i = 0; i < ls->n; i++)
		members[pos[key_of[i] - 1]++] = (uint32_t)i;
	for (i = 1; i <= ng; i++) {
		err = fill_group(set, &set->pub.v[i - 1], tl_strtab_get(&keys, (uint32_t)i),
				 tl_strtab_len(&keys, (uint32_t)i), ls, members + start[i - 1],
				 start[i] - start[i - 1], tmp);
		if (err)
			goto nomem;
	}
	set->pub.n = ng;
	tl_qsort(set->pub.v, ng, sizeof(*set->pub.v), cmp_group);
	*out = &set->pub;
	set = NULL;
	goto out;
nomem:
	err = tl_err(-ENOMEM, "out of memory grouping launchers");
out:
	free(key_of);
	free(members);
	free(start);
	free(pos);
	free(tmp);
	tl_vec_free(&key);
	tl_strtab_free(&keys);
	tl_launcher_set_free(ls);
	tl_launcher_group_set_free(set ? &set->pub : NULL);
	return err;
}

void tl_launcher_group_set_free(struct tl_launcher_group_set *pub)
{
	struct group_set *set = (struct group_set *)pub;	/* pub is the first member */

	if (!set)
		return;
	free(set->pub.v);
	tl_arena_free(&set->arena);
	free(set);
}

/* SPDX-License-Identifier: MIT */
/* The call_stack_full and entry_point columns of the inference report's
 * unified_perf_summary (TraceLens's include_call_stack): where in the Python
 * program an op was called from, as the chain of frames from the top of its
 * call tree down to each of its kernels, and the frame that dispatched it.
 *
 * A chain holds, from the root the unified table's walk started at down to
 * the op, the names of the python functions, modules and ops on the way:
 * those with "nn.Module", "::" or "/" in their name, and every cpu_op, each
 * with every "_<digits>" taken out (call counters and module indices); then
 * the same below the op down to the kernel, then the kernel's own name. The
 * walk starts at a python function with no parent where there is one above
 * the op, else at the highest cpu_op (TraceLens walks the python roots
 * first, then the cpu roots). One kernel: that chain, as Python prints a
 * list; several: their common head, then each different tail as a list. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tree.h>

#include "report/report_internal.h"

struct frames {
	char **v;
	size_t n, cap;
};

static void frames_free(struct frames *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* Append @s (malloc'ed, NULL when it could not be) to @f, which owns it. */
static int push(struct frames *f, char *s)
{
	if (!s || tl_vec_push(f, s)) {
		free(s);
		return -ENOMEM;
	}
	return 0;
}

/* re.sub(r"_\d+", "", s) */
static char *strip_counters(const char *s)
{
	char *o = malloc(strlen(s) + 1), *w = o;

	if (!o)
		return NULL;
	while (*s) {
		if (s[0] == '_' && s[1] >= '0' && s[1] <= '9') {
			for (s++; *s >= '0' && *s <= '9'; s++)
				;
			continue;
		}
		*w++ = *s++;
	}
	*w = 0;
	return o;
}

/* Whether a node on the way is a frame of the chain. */
static bool is_frame(const struct tl_event_info *e)
{
	return e->kind == TL_KIND_CPU_OP || strstr(e->name, "nn.Module") || strstr(e->name, "::") ||
	       strchr(e->name, '/');
}

/* The frames from the walk's root down to @op, @op included. */
static int base_frames(struct tl_trace *tr, uint64_t op, struct frames *out)
{
	TL_VEC(uint64_t) path = { 0 };
	struct tl_event_info e;
	int64_t p;
	size_t i, start = 0;
	int err = 0;

	for (p = (int64_t)op; p >= 0 && !err; p = tl_event_parent(tr, (uint64_t)p))
		if (tl_vec_push(&path, (uint64_t)p))
			err = -ENOMEM;
	if (err || !path.n)
		goto out;
	/* path runs from @op up: its last entry is the top */
	if (tl_trace_event(tr, path.v[path.n - 1], &e) || e.kind != TL_KIND_PYTHON) {
		/* the highest cpu_op */
		for (i = 0; i < path.n; i++)
			if (!tl_trace_event(tr, path.v[i], &e) && e.kind == TL_KIND_CPU_OP)
				start = i;
	} else {
		start = path.n - 1;
	}
	for (i = start + 1; i-- > 0 && !err;)
		if (!tl_trace_event(tr, path.v[i], &e) && is_frame(&e))
			err = push(out, strip_counters(e.name));
out:
	free(path.v);
	return err;
}

/* The frames between @op and its kernel @k (exclusive), top first. Under a
 * pseudo op (tl_trace_add_pseudo_ops) TraceLens's launch call still has the
 * op above the pseudo op as its parent: the walk up from the kernel passes
 * the pseudo op by and reaches the root, so its chain holds the whole stack
 * twice. So does this one, to print what TraceLens prints. */
static int kernel_frames(struct tl_trace *tr, uint64_t op, uint64_t k, struct frames *out)
{
	struct tl_event_info e;
	size_t first = out->n, i, j;
	int64_t p;
	int err = 0;

	for (p = tl_event_parent(tr, k); p >= 0 && !err; p = tl_event_parent(tr, (uint64_t)p)) {
		if (tl_trace_event(tr, (uint64_t)p, &e))
			continue;
		if (!strncmp(e.name, "pseudo_op::", 11))
			continue;
		if ((uint64_t)p == op)
			break;
		if (is_frame(&e))
			err = push(out, strip_counters(e.name));
	}
	for (i = first, j = out->n; !err && i + 1 < j; i++, j--) {
		char *t = out->v[i];

		out->v[i] = out->v[j - 1];
		out->v[j - 1] = t;
	}
	return err;
}

static int put_list(char **buf, size_t *len, size_t *cap, char *const *v, size_t n)
{
	size_t i;
	int err = rpt_str_append(buf, len, cap, "[");

	for (i = 0; i < n && !err; i++) {
		if (i)
			err = rpt_str_append(buf, len, cap, ", ");
		if (!err)
			err = rpt_pystr_append(buf, len, cap, v[i]);
	}
	return err ? err : rpt_str_append(buf, len, cap, "]");
}

static bool same_frames(const struct frames *a, const struct frames *b, size_t from)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = from; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]))
			return false;
	return true;
}

/* TraceLens's _find_entry_point's wrappers, skipped looking outward. */
static bool is_wrapper(const char *f)
{
	static const char *const prefixes[] = { "<built-in", "pybind11_builtins", "nn.Module:" };
	static const char *const files[] = {
		"torch/_ops.py", "torch/nn/modules/module.py", "torch/utils/_contextlib.py",
		"torch/utils/_device.py", "torch/_tensor.py", "torch/functional.py",
		"torch/overrides.py", "torch/_inductor/", "torch/_functorch/",
		"torch/distributed/c10d_logger.py", "triton/backends/",
	};
	static const char *const funcs[] = {
		"__torch_function__", "_call_impl", "_wrapped_call_impl", "decorate_context",
		"dispatch_wrapper", "handle_torch_function", "wrapper", "custom_wrapper",
		"wrapper_custom", "outer_wrapper",
	};
	const char *fn = NULL, *q;
	size_t i;

	for (i = 0; i < RPT_N(prefixes); i++)
		if (!strncmp(f, prefixes[i], strlen(prefixes[i])))
			return true;
	for (i = 0; i < RPT_N(files); i++)
		if (strstr(f, files[i]))
			return true;
	for (q = strstr(f, "): "); q; q = strstr(q + 1, "): "))
		fn = q + 3;
	for (i = 0; fn && i < RPT_N(funcs); i++)
		if (!strcmp(fn, funcs[i]))
			return true;
	return false;
}

static char *lower(const char *s)
{
	char *o = strdup(s), *p;

	for (p = o; p && *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return o;
}

/* The frame that dispatched op @name, in the flattened chain @v (@n frames): looking
 * down from the op for a .py frame whose function is named like the op,
 * else up for the first .py frame that is not a wrapper. */
static char *entry_point(const char *const *v, size_t n, const char *name)
{
	const char *local = name, *q;
	char *want = NULL, *stripped = NULL, *res = NULL;
	size_t i, len = strlen(name), k = len;
	long at = -1, j;

	for (q = strstr(name, "::"); q; q = strstr(q + 1, "::"))
		local = q + 2;
	if (!(want = lower(local)))
		return NULL;
	for (i = n; i-- > 0 && at < 0;)
		if (!strcmp(v[i], name))
			at = (long)i;
	/* re.sub(r"_\d+$", "", name): a chain's frames have lost their counters */
	while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	if (at < 0 && k < len && k > 0 && name[k - 1] == '_' && (stripped = strndup(name, k - 1)))
		for (i = n; i-- > 0 && at < 0;)
			if (!strcmp(v[i], stripped))
				at = (long)i;
	free(stripped);
	if (at < 0)
		goto out;
	for (i = (size_t)at + 1; i < n && !res; i++) {
		const char *fn = v[i];
		char *lf;

		if (!strstr(fn, ".py"))
			continue;
		for (q = strstr(v[i], "): "); q; q = strstr(q + 1, "): "))
			fn = q + 3;
		lf = lower(fn);
		if (lf && strstr(lf, want))
			res = strdup(v[i]);
		free(lf);
		if (!lf)
			goto out;
	}
	for (j = at - 1; j >= 0 && !res; j--)
		if (strstr(v[j], ".py") && !is_wrapper(v[j]))
			res = strdup(v[j]);
out:
	free(want);
	return res ? res : strdup("Not found");
}

int rpt_call_stack(struct tl_trace *tr, uint64_t op, bool from_op, const struct pkernel *k, size_t nk,
		   const char *name, char **stack, char **entry)
{
	struct frames base = { 0 }, *ch = NULL;
	TL_VEC(const char *) flat = { 0 };	/* borrowed from ch */
	size_t i, j, head = 0, len = 0, cap = 0;
	int err = 0;

	*stack = *entry = NULL;
	if (!nk) {
		*stack = strdup("Not found");
		*entry = strdup("Not found");
		return *stack && *entry ? 0 : -ENOMEM;
	}
	ch = calloc(nk, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	if (from_op)
		err = base_frames(tr, op, &base);
	for (i = 0; i < nk && !err; i++) {
		for (j = 0; j < base.n && !err; j++)
			err = push(&ch[i], strdup(base.v[j]));
		if (!err && from_op)
			err = kernel_frames(tr, op, k[i].uid, &ch[i]);
		if (!err)
			err = push(&ch[i], strdup(k[i].name));
	}
	if (err)
		goto out;
	/* the head every chain shares */
	if (nk > 1) {
		size_t m = ch[0].n;

		for (i = 1; i < nk; i++)
			m = ch[i].n < m ? ch[i].n : m;
		for (head = 0; head < m; head++) {
			for (i = 1; i < nk && !strcmp(ch[i].v[head], ch[0].v[head]); i++)
				;
			if (i < nk)
				break;
		}
	} else {
		head = ch[0].n;
	}
	err = rpt_str_append(stack, &len, &cap, "[");
	for (j = 0; j < head && !err; j++) {
		if (j)
			err = rpt_str_append(stack, &len, &cap, ", ");
		if (!err)
			err = rpt_pystr_append(stack, &len, &cap, ch[0].v[j]);
		if (!err)
			err = tl_vec_push(&flat, ch[0].v[j]) ? -ENOMEM : 0;
	}
	/* then each different tail once, in order */
	for (i = 0; nk > 1 && i < nk && !err; i++) {
		for (j = 0; j < i; j++)
			if (same_frames(&ch[j], &ch[i], head))
				break;
		if (j < i)
			continue;
		if (head || i)
			err = rpt_str_append(stack, &len, &cap, ", ");
		if (!err)
			err = put_list(stack, &len, &cap, ch[i].v + head, ch[i].n - head);
		for (j = head; j < ch[i].n && !err; j++)
			err = tl_vec_push(&flat, ch[i].v[j]) ? -ENOMEM : 0;
	}
	if (!err)
		err = rpt_str_append(stack, &len, &cap, "]");
	if (!err && !(*entry = entry_point(flat.v, flat.n, name)))
		err = -ENOMEM;
out:
	if (err) {
		free(*stack);
		*stack = NULL;
	}
	for (i = 0; i < nk; i++)
		frames_free(&ch[i]);
	free(ch);
	frames_free(&base);
	free(flat.v);
	return err;
}

/* SPDX-License-Identifier: MIT */
/* Activation-recompute detection: subtrees under checkpoint's recompute_fn. */
#include "analysis/analysis_internal.h"

int tl_recompute_flags(struct tl_trace *tr, uint8_t **out)
{
	struct tl_tree *t = &tr->tree;
	uint8_t *flag = NULL, *is_root = NULL;
	TL_VEC(int32_t) stack = { 0 };
	size_t i;
	int err;

	*out = NULL;
	err = tl_tree_ensure(tr, true);
	if (err)
		return err;
	flag = calloc(tr->nev + 1, 1);
	is_root = calloc(tr->strs.n, 1);	/* by name: 1 no, 2 yes */
	if (!flag || !is_root)
		goto nomem;
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if (e->kind != TL_KIND_PYTHON)
			continue;
		if (!is_root[e->name]) {
			const char *n = tl_strtab_get(&tr->strs, e->name);

			is_root[e->name] = strstr(n, "torch/utils/checkpoint.py") &&
						   strstr(n, "recompute_fn") ? 2 : 1;
		}
		if (is_root[e->name] != 2 || flag[i])
			continue;
		stack.n = 0;
		if (tl_vec_push(&stack, (int32_t)i))
			goto nomem;
		while (stack.n) {
			int32_t u = stack.v[--stack.n], c;

			flag[u] = 1;
			for (c = t->first_child[u]; c >= 0; c = t->next_sibling[c])
				if (tl_vec_push(&stack, c))
					goto nomem;
		}
	}
	tl_vec_free(&stack);
	free(is_root);
	*out = flag;
	return 0;
nomem:
	tl_vec_free(&stack);
	free(is_root);
	free(flag);
	return tl_err(-ENOMEM, "out of memory detecting recompute");
}

/* SPDX-License-Identifier: MIT */
/* Finding ranks: the rank in a file name, and the rank files of a directory. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <strings.h>
#include <sys/stat.h>

#include "ranks/ranks_internal.h"

const char *tl_rank_source_name(enum tl_rank_source src)
{
	switch (src) {
	case TL_RANK_FROM_OPTION: return "option";
	case TL_RANK_FROM_TRACE: return "distributedInfo";
	case TL_RANK_FROM_NAME: return "file name";
	case TL_RANK_FROM_ORDER: return "order";
	}
	return "?";
}

/* The rank after the word starting at @p, or -1: an optional separator,
 * then digits. */
static int digits_after(const char *p)
{
	long v = 0;
	int nd = 0;

	if (*p == '-' || *p == '_' || *p == '.')
		p++;
	for (; isdigit((unsigned char)*p) && nd < 9; p++, nd++)
		v = v * 10 + (*p - '0');
	if (!nd || isdigit((unsigned char)*p))
		return -1;
	return (int)v;
}

int tl_rank_from_filename(const char *path)
{
	static const char *const words[] = { "rank", "worker" };
	const char *base, *p;
	int best = -1;
	ptrdiff_t best_at = -1;
	size_t w;

	if (!path)
		return -1;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (w = 0; w < TL_ARRAY_SIZE(words); w++) {
		size_t wl = strlen(words[w]);

		for (p = base; *p; p++) {
			int r;

			if (strncasecmp(p, words[w], wl))
				continue;
			r = digits_after(p + wl);
			if (r >= 0 && p - base > best_at) {	/* the last one wins */
				best = r;
				best_at = p - base;
			}
		}
	}
	return best;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcmp(s + n - m, suf);
}

static int cmp_path(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

void tl_ranks_paths_free(char **paths, size_t n)
{
	size_t i;

	if (!paths)
		return;
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

int tl_ranks_list_dir(const char *dir, char ***paths, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t nv = 0, cap = 0;
	int err = 0;

	*paths = NULL;
	*n = 0;
	if (!d)
		return tl_err(-errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		char *p;
		struct stat st;

		/* JAX writes one <host>.xplane.pb per host of a multi-host job */
		if (nm[0] == '.' || !(ends_with(nm, ".json") || ends_with(nm, ".json.gz") ||
				      ends_with(nm, ".jsonl") || ends_with(nm, ".xplane.pb") ||
				      ends_with(nm, ".xplane.pb.gz")))
			continue;
		if (asprintf(&p, "%s/%s", dir, nm) < 0) {
			err = -ENOMEM;
			break;
		}
		if (stat(p, &st) || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		if (tl_grow((void **)&v, &cap, nv + 1, sizeof(*v))) {
			free(p);
			err = -ENOMEM;
			break;
		}
		v[nv++] = p;
	}
	closedir(d);
	if (!err && !nv)
		err = tl_err(-ENODATA, "%s: no trace or rank summary in it (*.json[.gz], *.xplane.pb[.gz], *.jsonl)",
			     dir);
	if (err) {
		tl_ranks_paths_free(v, nv);
		return err == -ENOMEM ? tl_err(err, "%s: out of memory", dir) : err;
	}
	tl_qsort(v, nv, sizeof(*v), cmp_path);
	*paths = v;
	*n = nv;
	return 0;
}

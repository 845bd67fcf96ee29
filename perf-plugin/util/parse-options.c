/* SPDX-License-Identifier: MIT */
/* The one option parser of the tlreplay subcommands (parse-options.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse-options.h"

/* Long-only options are told apart by getopt_long's return value: this
 * plus their index, above every short letter. */
#define LONG_ONLY 0x100

/* A table with its groups resolved: one entry per option or text row, the
 * offsets made relative to the parsed struct. */
struct flat {
	const struct opt *def;	/* the row that says how to parse it */
	size_t off;
	int short_name;
	const char *argh;
	const char *help;
	unsigned flags;
};

struct flat_list {
	struct flat *v;
	size_t n, cap;
};

/* The parser's own errors are about the tables or memory, not the user's
 * input: getopt_long and the callbacks say what is wrong with that. */
static int no_memory(void)
{
	fputs("tlreplay: out of memory\n", stderr);
	return 1;
}

/* @v, an array of *@cap elements of @size bytes, with room for element @n:
 * @v itself or a larger copy (*@cap updated); NULL when memory ran out (@v
 * is still there). */
static void *room(void *v, size_t *cap, size_t n, size_t size)
{
	size_t nc = *cap ? 2 * *cap : 16;

	if (n < *cap)
		return v;
	v = realloc(v, nc * size);
	if (v)
		*cap = nc;
	return v;
}

static int push(struct flat_list *l, struct flat f)
{
	struct flat *v = room(l->v, &l->cap, l->n, sizeof(*v));

	if (!v)
		return no_memory();
	l->v = v;
	l->v[l->n++] = f;
	return 0;
}

void opt_strings_free(struct opt_strings *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static bool is_option(const struct opt *o)
{
	return o->kind == OPT_KIND_BOOL || o->kind == OPT_KIND_STRING || o->kind == OPT_KIND_U64 ||
	       o->kind == OPT_KIND_STRINGS || o->kind == OPT_KIND_CALLBACK || o->kind == OPT_KIND_HELP;
}

static int resolve_use(const struct opt *use, size_t off, struct flat *out);

/* The option called @name in @group (looking into its includes and uses). */
static int find(const struct opt *group, const char *name, size_t off, struct flat *out)
{
	const struct opt *o;

	for (o = group; o->kind != OPT_KIND_END; o++) {
		if (is_option(o) && !strcmp(o->long_name, name)) {
			*out = (struct flat){ o, off + o->off, o->short_name, o->argh, o->help, o->flags };
			return 0;
		}
		if (o->kind == OPT_KIND_USE && !strcmp(o->long_name, name))
			return resolve_use(o, off, out);
		if (o->kind == OPT_KIND_INCLUDE && !find(o->group, name, off + o->off, out))
			return 0;
	}
	return -1;
}

/* An OPT_USE row, at @off in the parsed struct: the group's option with the
 * row's own help and flags. */
static int resolve_use(const struct opt *use, size_t off, struct flat *out)
{
	if (find(use->group, use->long_name, off + use->off, out))
		return fprintf(stderr, "tlreplay: internal error: no option --%s in the group it is "
			       "taken from\n", use->long_name), 1;
	if (use->argh)
		out->argh = use->argh;
	if (use->help)
		out->help = use->help;
	if (use->flags & OPT_NOSHORT)
		out->short_name = 0;
	out->flags |= use->flags & ~OPT_NOSHORT;
	return 0;
}

static int flatten(const struct opt *rows, size_t off, unsigned flags, struct flat_list *l)
{
	const struct opt *o;

	for (o = rows; o->kind != OPT_KIND_END; o++) {
		struct flat f = { o, off + o->off, o->short_name, o->argh, o->help, o->flags | flags };

		if (o->kind == OPT_KIND_INCLUDE) {
			if (flatten(o->group, off + o->off, flags | o->flags, l))
				return 1;
			continue;
		}
		if (o->kind == OPT_KIND_USE) {
			if (resolve_use(o, off, &f))
				return 1;
			f.flags |= flags;
		}
		if (push(l, f))
			return 1;
	}
	return 0;
}

/* Two rows for one option letter or name would make one of them dead. */
static int check_unique(const struct flat_list *l)
{
	size_t i, k;

	for (i = 0; i < l->n; i++)
		for (k = 0; is_option(l->v[i].def) && k < i; k++) {
			const struct flat *a = &l->v[i], *b = &l->v[k];

			if (!is_option(b->def))
				continue;
			if (!strcmp(a->def->long_name, b->def->long_name) ||
			    (a->short_name && a->short_name == b->short_name))
				return fprintf(stderr, "tlreplay: internal error: --%s and --%s share a name "
					       "in one table\n", a->def->long_name, b->def->long_name), 1;
		}
	return 0;
}

static int flat_table(const struct cmd *cmd, struct flat_list *l)
{
	memset(l, 0, sizeof(*l));
	if (!cmd->opts)
		return 0;
	if (flatten(cmd->opts, 0, 0, l) || check_unique(l)) {
		free(l->v);
		memset(l, 0, sizeof(*l));
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ parsing */

bool parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

static int take(const struct cmd *cmd, const struct flat *f, const char *arg, void *base)
{
	void *field = (char *)base + f->off;

	switch (f->def->kind) {
	case OPT_KIND_BOOL:
		*(bool *)field = true;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)field = arg;
		return 0;
	case OPT_KIND_STRINGS: {
		struct opt_strings *l = field;
		const char **v = room(l->v, &l->cap, l->n, sizeof(*v));

		if (!v)
			return no_memory();
		l->v = v;
		l->v[l->n++] = arg;
		return 0;
	}
	case OPT_KIND_U64:
		if (parse_u64(arg, field))
			return 0;
		fprintf(stderr, "tlreplay: %s: bad --%s '%s'\n", cmd->name, f->def->long_name, arg);
		return 1;
	case OPT_KIND_CALLBACK:
		return f->def->cb(f->def, arg, field) ? 1 : 0;
	case OPT_KIND_HELP:
		opts_help(cmd, stdout);
		return -1;
	default:
		return 1;
	}
}

/* After a wrong option: the usage line of @cmd and where to read more. */
static int opts_usage_error(const struct cmd *cmd)
{
	const char *nl = strchr(cmd->usage, '\n');

	fprintf(stderr, "%.*s\n", nl ? (int)(nl - cmd->usage) : (int)strlen(cmd->usage), cmd->usage);
	fprintf(stderr, "(see `tlreplay %s --help`)\n", cmd->name);
	return 1;
}

/* struct cmd's lone_option: argv[1], if it is an option spelled out. */
static int lone_option(const struct cmd *cmd, const struct flat_list *l, int argc, char **argv, void *base)
{
	size_t i;

	optind = 1;
	for (i = 0; argc > 1 && i < l->n; i++) {
		const struct flat *f = &l->v[i];
		const char *w = argv[1];

		if (!is_option(f->def) || f->def->argh)
			continue;
		if ((w[0] == '-' && w[1] == '-' && !strcmp(w + 2, f->def->long_name)) ||
		    (f->short_name && w[0] == '-' && w[1] == f->short_name && !w[2])) {
			optind = 2;
			return take(cmd, f, NULL, base);
		}
	}
	return 0;
}

/* Levenshtein distance of two short words (each at most 63 bytes counted). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, 63), lb = strnlen(b, 63), i, j, row[64];

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *opts_closest(const char *word, const char *const *names, size_t n)
{
	static char buf[256];
	size_t len = strlen(word), limit = len <= 4 ? 1 : len <= 8 ? 2 : 3, d, i, k = 0;

	buf[0] = 0;
	/* the closest first: one pass per distance */
	for (d = 0; d <= limit && k < 3; d++)
		for (i = 0; i < n && k < 3; i++) {
			size_t used = strlen(buf);

			if (!names[i] || edit_distance(word, names[i]) != d)
				continue;
			snprintf(buf + used, sizeof(buf) - used, "%s%s", k ? " or " : "", names[i]);
			k++;
		}
	return buf;
}

/* After getopt_long's "unrecognized option '--per-devise'": the close long
 * options of the command, if any. */
static void suggest_option(const struct flat_list *l, const char *bad)
{
	const char *names[256], *near;
	char word[64];
	size_t i, n = 0;

	if (!bad || strncmp(bad, "--", 2))
		return;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(bad + 2, "="), bad + 2);
	for (i = 0; i < l->n && n < sizeof(names) / sizeof(names[0]); i++)
		if (is_option(l->v[i].def) && l->v[i].def->long_name)
			names[n++] = l->v[i].def->long_name;
	near = opts_closest(word, names, n);
	if (*near)
		fprintf(stderr, "did you mean --%s?\n", near);
}

/* opts_parse(): 0 to go on, -1 after --help, 1 after an error */
static int parse(const struct cmd *cmd, int argc, char **argv, void *base)
{
	struct flat_list l;
	struct option *lo = NULL;
	char *shorts = NULL, *s;
	size_t i, nlo = 0;
	int c, rc = 1;

	if (flat_table(cmd, &l))
		return 1;
	if (cmd->lone_option) {
		rc = lone_option(cmd, &l, argc, argv, base);
		goto out;
	}
	/* getopt_long's tables, made from ours */
	lo = calloc(l.n + 1, sizeof(*lo));
	shorts = malloc(2 * l.n + 2);
	if (!lo || !shorts) {
		no_memory();
		goto out;
	}
	s = shorts;
	if (cmd->runs_command)
		*s++ = '+';
	for (i = 0; i < l.n; i++) {
		const struct flat *f = &l.v[i];
		int has_arg = f->def->argh ? required_argument : no_argument;

		if (!is_option(f->def))
			continue;
		lo[nlo++] = (struct option){ f->def->long_name, has_arg, NULL,
					     f->short_name ? f->short_name : LONG_ONLY + (int)i };
		if (f->short_name) {
			*s++ = (char)f->short_name;
			if (has_arg == required_argument)
				*s++ = ':';
		}
	}
	*s = 0;
	optind = 0;	/* a fresh scan, in case a parse ran before */
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct flat *f = NULL;

		if (c >= LONG_ONLY && (size_t)(c - LONG_ONLY) < l.n)
			f = &l.v[c - LONG_ONLY];
		for (i = 0; !f && c != '?' && i < l.n; i++)
			if (is_option(l.v[i].def) && l.v[i].short_name == c)
				f = &l.v[i];
		if (!f) {	/* getopt_long said what was wrong */
			suggest_option(&l, argv[optind - 1]);
			rc = opts_usage_error(cmd);
			goto out;
		}
		rc = take(cmd, f, optarg, base);
		if (rc)
			goto out;
	}
	rc = 0;
out:
	free(lo);
	free(shorts);
	free(l.v);
	return rc;
}

bool opts_parse(const struct cmd *cmd, int argc, char **argv, void *base, int *status)
{
	int rc = parse(cmd, argc, argv, base);

	if (rc)
		*status = rc < 0 ? 0 : 1;
	return !rc;
}

/* ------------------------------------------------------------------ help */

/* Where the help words of an option start, as the hand-written help had it. */
#define HELP_COL 31

static size_t left_part(const struct flat *f, char *buf, size_t n)
{
	int k;

	if (f->flags & OPT_SAME_LINE)
		k = snprintf(buf, n, ", --%s", f->def->long_name);
	else if (f->short_name)
		k = snprintf(buf, n, "    -%c, --%s", f->short_name, f->def->long_name);
	else
		k = snprintf(buf, n, "        --%s", f->def->long_name);
	if (k > 0 && (size_t)k < n && f->argh)
		k += snprintf(buf + k, n - (size_t)k, " %s", f->argh);
	return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n - 1;
}

static void print_help_words(const char *help, size_t col, FILE *f)
{
	const char *p = help ? help : "", *nl;

	/* a short option column leaves the words at HELP_COL; a long one, two spaces on */
	fprintf(f, "%*s", col < HELP_COL - 1 ? (int)(HELP_COL - col) : 2, "");
	for (;;) {
		nl = strchr(p, '\n');
		fprintf(f, "%.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
		if (!nl || !nl[1])
			break;
		p = nl + 1;
		fprintf(f, "%*s", HELP_COL, "");
	}
}

void opts_help(const struct cmd *cmd, FILE *f)
{
	struct flat_list l;
	size_t i;

	fputs(cmd->usage, f);
	if (flat_table(cmd, &l))
		return;
	for (i = 0; i < l.n; i++) {
		const struct flat *o = &l.v[i];
		char left[256];
		size_t col;

		if (o->flags & (OPT_HIDDEN | OPT_SAME_LINE))
			continue;
		if (o->def->kind == OPT_KIND_TEXT) {
			fputs(o->help, f);
			continue;
		}
		col = left_part(o, left, sizeof(left));
		fputs(left, f);
		/* options shown on this line with it ("--from US, --to US") */
		while (i + 1 < l.n && (l.v[i + 1].flags & OPT_SAME_LINE)) {
			char more[128];

			col += left_part(&l.v[++i], more, sizeof(more));
			fputs(more, f);
		}
		print_help_words(o->help, col, f);
	}
	free(l.v);
}

void opts_list(const struct cmd *cmd, FILE *f)
{
	struct flat_list l;
	size_t i;

	if (flat_table(cmd, &l))
		return;
	for (i = 0; i < l.n; i++)
		if (is_option(l.v[i].def) && !(l.v[i].flags & OPT_HIDDEN))
			fprintf(f, "--%s\n", l.v[i].def->long_name);
	free(l.v);
}

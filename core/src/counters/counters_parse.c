/* SPDX-License-Identifier: MIT */
/* perf stat -e syntax: "a,b:u,{c,d}:W,pmu/event=0x3c,umask=1/k,r01c2".
 * A comma list of events and "{...}" groups; modifiers after ':' (or right
 * after a PMU event's closing '/'); names resolved as perf does: generic
 * names, raw rNNNN, sysfs PMU events, then libpfm4. Errors give the column. */
#include <ctype.h>
#include <stdio.h>

#include "counters/counters_internal.h"

struct parser {
	const char *s;		/* the whole list, for messages */
	size_t pos;
	struct tl_cnt_list *out;
};

static int syntax(const struct parser *p, size_t at, const char *what)
{
	return tl_err(-EINVAL, "bad event list \"%s\": %s at column %zu", p->s, what, at + 1);
}

/* ------------------------------------------------------------ modifiers */

int tl_cnt_mods_parse(const char *s, size_t n, struct tl_cnt_mods *m, size_t *bad)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case 'u': m->u = true; break;
		case 'k': m->k = true; break;
		case 'h': m->h = true; break;
		case 'G': m->G = true; break;
		case 'H': m->H = true; break;
		case 'I': m->I = true; break;
		case 'D': m->D = true; break;
		case 'e': m->e = true; break;
		case 'W': m->W = true; break;
		case 'S': m->S = true; break;
		case 'P': break;	/* "maximum precision" matters to sampling only */
		case 'p':
			if (m->p == 3)
				goto bad;
			m->p++;
			break;
		default:
			goto bad;
		}
	}
	return 0;
bad:
	*bad = i;
	return -EINVAL;
}

void tl_cnt_mods_apply(struct perf_event_attr *a, const struct tl_cnt_mods *m)
{
	/* perf's get_event_modifier(): the first of u/k/h excludes every
	 * level, then each letter given counts its own back. */
	unsigned eu = a->exclude_user, ek = a->exclude_kernel, eh = a->exclude_hv;
	unsigned eG = a->exclude_guest, eH = a->exclude_host;
	unsigned ex = eu | ek | eh, exGH = eG | eH;

	if (tl_cnt_mods_priv(m) && !ex)
		eu = ek = eh = 1;
	if (m->u)
		eu = 0;
	if (m->k)
		ek = 0;
	if (m->h)
		eh = 0;
	if ((m->G || m->H) && !exGH)
		eG = eH = 1;
	if (m->G)
		eG = 0;
	if (m->H)
		eH = 0;
	a->exclude_user = eu;
	a->exclude_kernel = ek;
	a->exclude_hv = eh;
	a->exclude_guest = eG;
	a->exclude_host = eH;
	if (m->p)
		a->precise_ip = (unsigned)m->p;
	if (m->I)
		a->exclude_idle = 1;
	if (m->D)
		a->pinned = 1;
	if (m->e)
		a->exclusive = 1;
}

static bool all_mods(const char *s, size_t n)
{
	struct tl_cnt_mods m = { 0 };
	size_t bad;

	return n > 0 && tl_cnt_mods_parse(s, n, &m, &bad) == 0;
}

/* ------------------------------------------------------------ names */

static int set_unit(struct tl_cnt_ev *ev, const char *unit)
{
	free(ev->unit);
	ev->unit = strdup(unit);
	return ev->unit ? 0 : -ENOMEM;
}

/* "r1a2": a raw config for PERF_TYPE_RAW. */
static bool raw_lookup(const char *name, struct perf_event_attr *attr)
{
	size_t n = strlen(name);
	char *end;

	if (n < 2 || n > 17 || name[0] != 'r' || strspn(name + 1, "0123456789abcdefABCDEF") != n - 1)
		return false;
	attr->type = PERF_TYPE_RAW;
	attr->config = strtoull(name + 1, &end, 16);
	return true;
}

/* Generic names, raw codes and sysfs aliases: what needs no libpfm4. */
static int resolve_local(const char *name, struct tl_cnt_ev *ev)
{
	memset(&ev->attr, 0, sizeof(ev->attr));
	if (!tl_cnt_generic_lookup(name, &ev->attr))
		return 0;	/* the clocks get their msec in parse_event() */
	if (raw_lookup(name, &ev->attr))
		return 0;
	return tl_cnt_sysfs_alias(name, ev);
}

static int resolve_pfm(const char *name, struct tl_cnt_ev *ev)
{
	bool priv = false;
	int err = tl_cnt_pfm_encode(name, &ev->attr, &priv);

	if (!err)
		ev->priv_given = ev->priv_given || priv;
	return err == -ENOTSUP ? -ENOENT : err;
}

static int unknown(const struct parser *p, const char *name, size_t col)
{
	char near[400];
	const char *nopfm = tl_cnt_pfm_unavailable();
	static const tl_cnt_names_fn known[] = { tl_cnt_generic_foreach, tl_cnt_sysfs_foreach };

	tl_cnt_suggest(name, known, TL_ARRAY_SIZE(known), near, sizeof(near));
	return tl_err(-EINVAL, "unknown event '%s' at column %zu of \"%s\"%s%s%s%s%s", name, col + 1,
		      p->s, near[0] ? "; did you mean: " : "", near, near[0] ? "?" : "",
		      nopfm ? "; PMU-specific names are unknown: " : "", nopfm ? nopfm : "");
}

/* ------------------------------------------------------------ one event */

/* Where the event starting at @i ends: at ',', '{', '}' or the end, the
 * commas of a PMU event's "/terms/" included. */
static int event_end(const struct parser *p, size_t i, size_t *end)
{
	const char *s = p->s, *shut;

	while (s[i] && !strchr(",{}", s[i])) {
		if (s[i] != '/') {
			i++;
			continue;
		}
		shut = strchr(s + i + 1, '/');
		if (!shut)
			return syntax(p, i, "'/' without its closing '/'");
		i = (size_t)(shut - s) + 1;
	}
	*end = i;
	return 0;
}

/* "pmu/terms/[:]mods" */
static int parse_pmu_event(const struct parser *p, const char *t, size_t col,
			   struct tl_cnt_ev *ev, struct tl_cnt_mods *m)
{
	const char *slash = strchr(t, '/'), *shut = strchr(slash + 1, '/');
	const char *mods = shut + 1 + (shut[1] == ':');
	char pmu[128], why[512];
	size_t bad;
	int err;

	if (slash == t || (size_t)(slash - t) >= sizeof(pmu))
		return syntax(p, col, "a PMU name must come before '/'");
	snprintf(pmu, sizeof(pmu), "%.*s", (int)(slash - t), t);
	if (tl_cnt_mods_parse(mods, strlen(mods), m, &bad))
		return syntax(p, col + (size_t)(mods - t) + bad, "unknown modifier");
	/* "cpu_core/cycles/": a generic name on one core PMU of a hybrid CPU */
	err = tl_cnt_hybrid_pmu_event(pmu, slash + 1, (size_t)(shut - slash - 1), &ev->attr);
	if (err == -ENOENT)
		err = tl_cnt_sysfs_event(pmu, slash + 1, (size_t)(shut - slash - 1), ev);
	if (err) {	/* keep the sysfs reason, say where; no such PMU is a bad name */
		snprintf(why, sizeof(why), "%s", tl_last_error());
		return tl_err(err == -ENOMEM ? err : -EINVAL, "%s (event at column %zu of \"%s\")",
			      why, col + 1, p->s);
	}
	ev->mods_typed = true;
	return 0;
}

/* A name with perf modifiers "cycles:u", or a libpfm4 string
 * "inst_retired:any_p:u" whose colons are its own. */
static int parse_named_event(const struct parser *p, const char *t, size_t col,
			     struct tl_cnt_ev *ev, struct tl_cnt_mods *m)
{
	const char *colon = strchr(t, ':');
	size_t blen = colon ? (size_t)(colon - t) : strlen(t), bad;
	char base[256];
	bool mods_ok = colon && all_mods(colon + 1, strlen(colon + 1));
	int err;

	if (blen >= sizeof(base))
		return syntax(p, col, "event name too long");
	snprintf(base, sizeof(base), "%.*s", (int)blen, t);
	err = resolve_local(base, ev);
	if (err != -ENOENT) {
		if (err || !colon)
			return err;
		if (tl_cnt_mods_parse(colon + 1, strlen(colon + 1), m, &bad))
			return syntax(p, col + blen + 1 + bad, "unknown modifier");
		ev->mods_typed = true;
		return 0;
	}
	/* libpfm4: "INST_RETIRED.ANY:u" with perf's modifiers, else the whole
	 * string with libpfm4's own (":u", ":c=2") */
	if (mods_ok && !resolve_pfm(base, ev)) {
		tl_cnt_mods_parse(colon + 1, strlen(colon + 1), m, &bad);
		ev->mods_typed = true;
		return 0;
	}
	err = resolve_pfm(t, ev);
	return err == -ENOENT ? unknown(p, colon && !mods_ok ? t : base, col) : err;
}

/* Append a group's modifier letters to a member's name, as perf shows them. */
static int name_with_mods(struct tl_cnt_ev *ev, const char *text, const char *gmods,
			  size_t glen)
{
	size_t n = strlen(text);
	bool direct = ev->mods_typed;	/* "cycles:k" + u: "cycles:ku"; "cpu/x/" + u: "cpu/x/u" */

	ev->name = malloc(n + glen + 2);
	if (!ev->name)
		return -ENOMEM;
	snprintf(ev->name, n + glen + 2, "%s%s%.*s", text, glen && !direct ? ":" : "", (int)glen,
		 gmods);
	return 0;
}

/* Parse the event at p->pos into a new entry of group @group. */
static int parse_event(struct parser *p, size_t group)
{
	struct tl_cnt_ev ev = { .scale = 1.0, .group = group };
	struct tl_cnt_mods m = { 0 };
	size_t start = p->pos, end = start;
	char *text = NULL;
	int err;

	err = event_end(p, start, &end);
	if (err)
		return err;
	while (end > start && isspace((unsigned char)p->s[end - 1]))
		end--;
	if (end == start)
		return syntax(p, start, "an event is missing");
	/* no event name, PMU term or modifier holds one (a pasted line break
	 * once read as a libpfm4 string that "cannot be encoded") */
	for (size_t i = start; i < end; i++)
		if (isspace((unsigned char)p->s[i]) || iscntrl((unsigned char)p->s[i]))
			return syntax(p, i, "a space or control character inside an event");
	text = strndup(p->s + start, end - start);
	if (!text)
		return -ENOMEM;
	err = strchr(text, '/') ? parse_pmu_event(p, text, start, &ev, &m)
				: parse_named_event(p, text, start, &ev, &m);
	if (err)
		goto out;
	if (ev.attr.type == PERF_TYPE_SOFTWARE && !ev.unit &&
	    (ev.attr.config == PERF_COUNT_SW_TASK_CLOCK ||
	     ev.attr.config == PERF_COUNT_SW_CPU_CLOCK)) {	/* a clock however named */
		ev.scale = 1e-6;
		err = set_unit(&ev, "msec");
		if (err)
			goto out;
	}
	tl_cnt_mods_apply(&ev.attr, &m);
	ev.priv_given = ev.priv_given || tl_cnt_mods_priv(&m);
	ev.name = text;
	text = NULL;
	err = tl_vec_push(&p->out->ev, ev);
	if (!err) {
		p->pos = end;
		ev.name = NULL;
		ev.unit = NULL;
	}
out:
	free(ev.name);
	free(ev.unit);
	free(text);
	return err;
}

/* ------------------------------------------------------------ groups */

static void skip_space(struct parser *p)
{
	while (isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

/* ":mods" after a group's '}': applied to every member, W marks it weak. */
static int group_mods(struct parser *p, struct tl_cnt_grp *g)
{
	struct tl_cnt_mods m = { 0 };
	size_t start = ++p->pos, n, bad = 0, nl = 0, i;
	struct tl_cnt_ev *ev;
	char *old, letters[32];
	int err = 0;

	n = strcspn(p->s + start, ",");
	while (n && isspace((unsigned char)p->s[start + n - 1]))
		n--;
	if (!n || tl_cnt_mods_parse(p->s + start, n, &m, &bad))
		return syntax(p, start + bad, "bad group modifier");
	p->pos = start + n;
	g->weak = m.W;
	for (i = 0; i < n && nl + 1 < sizeof(letters); i++)	/* W is the group's own */
		if (p->s[start + i] != 'W')
			letters[nl++] = p->s[start + i];
	letters[nl] = '\0';
	for (i = g->first; i < g->first + g->n && !err && nl; i++) {
		ev = &p->out->ev.v[i];
		tl_cnt_mods_apply(&ev->attr, &m);
		ev->priv_given = ev->priv_given || tl_cnt_mods_priv(&m);
		old = ev->name;
		err = name_with_mods(ev, old, letters, nl);
		if (err)
			ev->name = old;
		else
			free(old);
		ev->mods_typed = true;
	}
	return err;
}

static int parse_group(struct parser *p)
{
	struct tl_cnt_grp g = { .first = p->out->ev.n, .braces = true };
	size_t open = p->pos++, gi = p->out->grp.n;
	int err;

	for (;;) {
		skip_space(p);
		if (p->s[p->pos] == '{')
			return syntax(p, p->pos, "groups cannot be nested");
		err = parse_event(p, gi);
		if (err)
			return err;
		g.n++;
		skip_space(p);
		if (p->s[p->pos] == '}')
			break;
		if (p->s[p->pos] != ',')
			return syntax(p, open, "'{' without its closing '}'");
		p->pos++;
	}
	p->pos++;
	if (p->s[p->pos] == ':') {
		err = group_mods(p, &g);
		if (err)
			return err;
	}
	return tl_vec_push(&p->out->grp, g);
}

static int parse_single(struct parser *p)
{
	struct tl_cnt_grp g = { .first = p->out->ev.n, .n = 1 };
	int err = parse_event(p, p->out->grp.n);

	return err ? err : tl_vec_push(&p->out->grp, g);
}

int tl_cnt_parse(const char *events, struct tl_cnt_list *out)
{
	struct parser p = { .s = events ? events : "", .out = out };
	int err = 0;

	memset(out, 0, sizeof(*out));
	while (!err) {
		skip_space(&p);
		err = p.s[p.pos] == '{' ? parse_group(&p) : parse_single(&p);
		if (err)
			break;
		skip_space(&p);
		if (!p.s[p.pos])
			break;
		if (p.s[p.pos] == '}')
			err = syntax(&p, p.pos, "'}' without its '{'");
		else if (p.s[p.pos] != ',')
			err = syntax(&p, p.pos, "',' expected");
		p.pos++;
	}
	if (!err)
		err = tl_cnt_hybrid_expand(out);
	if (err)
		tl_cnt_list_free(out);
	return err;
}

/* SPDX-License-Identifier: MIT */
/* PMU events described in sysfs, as perf reads them:
 *   ROOT/bus/event_source/devices/<pmu>/type          the perf_event_attr type
 *   ROOT/bus/event_source/devices/<pmu>/format/<term> "config:0-7,21": where a term's bits go
 *   ROOT/bus/event_source/devices/<pmu>/events/<ev>   "event=0x3c,umask=0x1": an alias
 *   .../events/<ev>.scale, <ev>.unit                  what a count is worth, and in what
 * ROOT is /sys, or $TLREPLAY_SYSFS_ROOT so that tests can build a fake PMU. */
#include <dirent.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <unistd.h>

#include "counters/counters_internal.h"

#define PMU_DIR "/bus/event_source/devices"

const char *tl_cnt_sysfs_root(void)
{
	const char *r = getenv("TLREPLAY_SYSFS_ROOT");

	return r && *r ? r : "/sys";
}

/* Read a small sysfs file into @buf, trailing whitespace removed.
 * Returns its length or -errno. */
static int read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return (int)n;
}

/* ROOT/bus/event_source/devices/PMU[/SUB[/NAME[SUFFIX]]] into @buf. */
static const char *pmu_path(char *buf, size_t size, const char *pmu, const char *sub,
			    const char *name, const char *suffix)
{
	snprintf(buf, size, "%s" PMU_DIR "/%s%s%s%s%s%s", tl_cnt_sysfs_root(), pmu,
		 sub ? "/" : "", sub ? sub : "", name ? "/" : "", name ? name : "",
		 suffix ? suffix : "");
	return buf;
}

static bool path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* ------------------------------------------------------------- formats */

/* Parse "config1:0-7,21" into the field it targets and a bit mask. */
static int format_parse(const char *spec, uint64_t **field, struct perf_event_attr *attr,
			uint64_t *mask)
{
	const char *colon = strchr(spec, ':'), *s;
	size_t flen = colon ? (size_t)(colon - spec) : 0;
	unsigned long lo, hi;
	char *end;

	if (flen == 6 && !strncmp(spec, "config", 6))
		*field = (uint64_t *)&attr->config;
	else if (flen == 7 && !strncmp(spec, "config1", 7))
		*field = (uint64_t *)&attr->config1;
	else if (flen == 7 && !strncmp(spec, "config2", 7))
		*field = (uint64_t *)&attr->config2;
	else
		return -EINVAL;
	*mask = 0;
	for (s = colon + 1; *s; s = *end == ',' ? end + 1 : end) {
		lo = strtoul(s, &end, 10);
		hi = lo;
		if (end == s)
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s)
				return -EINVAL;
		}
		if (hi > 63 || lo > hi || (*end && *end != ','))
			return -EINVAL;
		*mask |= (hi == 63 ? ~0ULL : (1ULL << (hi + 1)) - 1) & ~((1ULL << lo) - 1);
	}
	return *mask ? 0 : -EINVAL;
}

int tl_cnt_format_apply(const char *spec, uint64_t value, struct perf_event_attr *attr,
			const char *term)
{
	uint64_t *field, mask, placed = 0, bit;
	int nbits = 0, b;

	if (format_parse(spec, &field, attr, &mask))
		return tl_err(-EINVAL, "bad sysfs format \"%s\" for term '%s'", spec, term);
	/* The value's bits go, lowest first, into the format's bits in
	 * ascending order (perf's pmu_format_value()). */
	for (b = 0; b < 64; b++) {
		bit = 1ULL << b;
		if (!(mask & bit))
			continue;
		if (nbits < 64 && (value >> nbits) & 1)
			placed |= bit;
		nbits++;
	}
	if (nbits < 64 && value >> nbits)
		return tl_err(-EINVAL, "value 0x%llx of term '%s' does not fit its %d bits (%s)",
			      (unsigned long long)value, term, nbits, spec);
	*field = (*field & ~mask) | placed;
	return 0;
}

/* ------------------------------------------------------------- terms */

struct term {
	char name[64], value[64];
	bool has_value;
};

/* Split the next "name[=value]" off @s (up to ',' or @end). */
static int next_term(const char **s, const char *end, struct term *t)
{
	const char *p = *s, *comma = memchr(p, ',', (size_t)(end - p)), *eq;
	const char *stop = comma ? comma : end;
	size_t nlen, vlen;

	eq = memchr(p, '=', (size_t)(stop - p));
	nlen = (size_t)((eq ? eq : stop) - p);
	vlen = eq ? (size_t)(stop - eq - 1) : 0;
	if (!nlen || nlen >= sizeof(t->name) || vlen >= sizeof(t->value) || (eq && !vlen))
		return -EINVAL;
	memcpy(t->name, p, nlen);
	t->name[nlen] = '\0';
	memcpy(t->value, eq ? eq + 1 : "", vlen);
	t->value[vlen] = '\0';
	t->has_value = eq != NULL;
	*s = comma ? comma + 1 : end;
	return 0;
}

static int term_value(const struct term *t, uint64_t *v)
{
	char *end;

	if (!t->has_value) {	/* "edge", "inv": a flag term means 1 */
		*v = 1;
		return 0;
	}
	errno = 0;
	*v = strtoull(t->value, &end, 0);
	if (errno || *end || t->value[0] == '-')
		return tl_err(-EINVAL, "bad value '%s' for term '%s' (a number: 12 or 0x1c)",
			      t->value, t->name);
	return 0;
}

/* The names of @pmu's format terms, "event, umask, cmask", for messages. */
static void format_names(const char *pmu, char *buf, size_t size)
{
	char path[512];
	struct dirent **names = NULL;
	int n, i;
	size_t len = 0;

	buf[0] = '\0';
	n = scandir(pmu_path(path, sizeof(path), pmu, "format", NULL, NULL), &names, NULL,
		    alphasort);
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' && len + 1 < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
						names[i]->d_name);
		free(names[i]);
	}
	free(names);
}

static int apply_terms(const char *pmu, const char *terms, size_t tlen, struct tl_cnt_ev *ev,
		       int depth);

/* A .scale file ("2.3283064365386962890625e-10"), read in the C locale
 * whatever the program set; 1 when it makes no sense. */
static double parse_scale(const char *s)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	double v = c ? strtod_l(s, NULL, c) : strtod(s, NULL);

	if (c)
		freelocale(c);
	return v > 0 && v < 1e300 ? v : 1.0;
}

/* An alias term ("pmu/tsc/"): its file's terms, then its .scale and .unit. */
static int apply_alias(const char *pmu, const char *name, struct tl_cnt_ev *ev, int depth)
{
	char path[512], buf[512];
	int n;

	pmu_path(path, sizeof(path), pmu, "events", name, NULL);
	if (depth > 0)
		return tl_err(-EINVAL, "%s: an alias that names another alias", path);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return tl_err(-EINVAL, "cannot read %s: %s", path, strerror(-n));
	n = apply_terms(pmu, buf, (size_t)n, ev, depth + 1);
	if (n)
		return n;
	if (read_small(pmu_path(path, sizeof(path), pmu, "events", name, ".scale"), buf,
		       sizeof(buf)) > 0)
		ev->scale = parse_scale(buf);
	if (read_small(pmu_path(path, sizeof(path), pmu, "events", name, ".unit"), buf,
		       sizeof(buf)) > 0) {
		free(ev->unit);
		ev->unit = strdup(buf);
		if (!ev->unit)
			return -ENOMEM;
	}
	return 0;
}

static int apply_term(const char *pmu, const struct term *t, struct tl_cnt_ev *ev, int depth)
{
	char path[512], spec[256], names[256], near[400];
	uint64_t v;
	int err;

	if (depth > 0 && !strcmp(t->value, "?"))	/* a parameter the user gives */
		return 0;
	if (!strcmp(t->name, "name"))	/* perf's display name: we keep the typed one */
		return 0;
	if (!t->has_value && path_exists(pmu_path(path, sizeof(path), pmu, "events", t->name,
						  NULL)))
		return apply_alias(pmu, t->name, ev, depth);
	err = term_value(t, &v);
	if (err)
		return err;
	if (!strcmp(t->name, "config") || !strcmp(t->name, "config1") ||
	    !strcmp(t->name, "config2")) {
		snprintf(spec, sizeof(spec), "%s:0-63", t->name);
		return tl_cnt_format_apply(spec, v, &ev->attr, t->name);
	}
	err = read_small(pmu_path(path, sizeof(path), pmu, "format", t->name, NULL), spec,
			 sizeof(spec));
	if (err < 0) {
		static const tl_cnt_names_fn known[] = { tl_cnt_generic_foreach,
							 tl_cnt_sysfs_foreach };

		format_names(pmu, names, sizeof(names));
		tl_cnt_suggest(t->name, known, TL_ARRAY_SIZE(known), near, sizeof(near));
		return tl_err(-EINVAL, "PMU '%s' has no term or event '%s' (terms: %s%sconfig, "
			      "config1, config2)%s%s%s", pmu, t->name, names, names[0] ? ", " : "",
			      near[0] ? "; did you mean: " : "", near, near[0] ? "?" : "");
	}
	return tl_cnt_format_apply(spec, v, &ev->attr, t->name);
}

static int apply_terms(const char *pmu, const char *terms, size_t tlen, struct tl_cnt_ev *ev,
		       int depth)
{
	const char *s = terms, *end = terms + tlen;
	struct term t;
	int err;

	while (s < end) {
		if (next_term(&s, end, &t))
			return tl_err(-EINVAL, "bad term \"%.*s\" for PMU '%s' (terms are name=value, "
				      "comma-separated)", (int)tlen, terms, pmu);
		err = apply_term(pmu, &t, ev, depth);
		if (err)
			return err;
	}
	return 0;
}

/* An alias's "name=?" parameters (perf's "needs a value" terms) that the
 * user left unset: only a bare alias can leave them unset. */
static int check_params(const char *pmu, const char *terms, size_t tlen)
{
	char path[512], buf[512], alias[128];
	const char *q, *b;

	if (!tlen || tlen >= sizeof(alias) || memchr(terms, '=', tlen) || memchr(terms, ',', tlen))
		return 0;
	memcpy(alias, terms, tlen);
	alias[tlen] = '\0';
	if (read_small(pmu_path(path, sizeof(path), pmu, "events", alias, NULL), buf,
		       sizeof(buf)) <= 0 || !(q = strstr(buf, "=?")))
		return 0;
	for (b = q; b > buf && b[-1] != ','; b--)
		;
	return tl_err(-EINVAL, "event %s/%s/ needs a value for '%.*s' (%s/%s,%.*s=N/)", pmu, alias,
		      (int)(q - b), b, pmu, alias, (int)(q - b), b);
}

int tl_cnt_sysfs_event(const char *pmu, const char *terms, size_t tlen, struct tl_cnt_ev *ev)
{
	char path[512], buf[32];
	int n;

	n = read_small(pmu_path(path, sizeof(path), pmu, "type", NULL, NULL), buf, sizeof(buf));
	if (n <= 0)
		return tl_err(-ENOENT, "no PMU '%s' on this machine (%s: %s)", pmu, path,
			      n < 0 ? strerror(-n) : "empty");
	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.type = (uint32_t)strtoul(buf, NULL, 10);
	n = check_params(pmu, terms, tlen);
	return n ? n : apply_terms(pmu, terms, tlen, ev, 0);
}

/* ------------------------------------------------------------- aliases */

static int skip_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Files beside an alias that describe it rather than name an event. */
static bool is_alias_meta(const char *name)
{
	static const char *const suffixes[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	size_t n = strlen(name), i, s;

	for (i = 0; i < TL_ARRAY_SIZE(suffixes); i++) {
		s = strlen(suffixes[i]);
		if (n > s && !strcmp(name + n - s, suffixes[i]))
			return true;
	}
	return false;
}

static int scan_pmus(struct dirent ***names)
{
	char path[512];

	snprintf(path, sizeof(path), "%s" PMU_DIR, tl_cnt_sysfs_root());
	return scandir(path, names, skip_dot, alphasort);
}

static void free_names(struct dirent **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int tl_cnt_sysfs_alias(const char *name, struct tl_cnt_ev *ev)
{
	struct dirent **pmus = NULL;
	char path[512];
	int n, i, err = -ENOENT;

	if (strchr(name, '/') || is_alias_meta(name) || name[0] == '.')
		return -ENOENT;
	n = scan_pmus(&pmus);
	for (i = 0; i < n && err == -ENOENT; i++) {
		if (path_exists(pmu_path(path, sizeof(path), pmus[i]->d_name, "events", name, NULL)))
			err = tl_cnt_sysfs_event(pmus[i]->d_name, name, strlen(name), ev);
	}
	free_names(pmus, n);
	return err;
}

/* The list lines of one PMU: its aliases, then its term syntax. */
static void pmu_foreach(const char *pmu, tl_cnt_list_fn fn, void *ctx)
{
	struct dirent **evs = NULL;
	char path[512], name[300], desc[600], val[400], unit[64];
	int n, i;

	n = scandir(pmu_path(path, sizeof(path), pmu, "events", NULL, NULL), &evs, skip_dot,
		    alphasort);
	for (i = 0; i < n; i++) {
		if (!is_alias_meta(evs[i]->d_name) &&
		    read_small(pmu_path(path, sizeof(path), pmu, "events", evs[i]->d_name, NULL),
			       val, sizeof(val)) >= 0) {
			unit[0] = '\0';
			read_small(pmu_path(path, sizeof(path), pmu, "events", evs[i]->d_name,
					    ".unit"), unit, sizeof(unit));
			snprintf(name, sizeof(name), "%s/%s/", pmu, evs[i]->d_name);
			snprintf(desc, sizeof(desc), "Kernel PMU event: %s%s%s%s", val,
				 unit[0] ? " (in " : "", unit, unit[0] ? ")" : "");
			fn(name, desc, ctx);
		}
	}
	free_names(evs, n);
	format_names(pmu, val, sizeof(val));
	if (val[0]) {
		snprintf(name, sizeof(name), "%s/<terms>/", pmu);
		snprintf(desc, sizeof(desc), "Kernel PMU '%s', terms: %s (name=value, comma-separated)",
			 pmu, val);
		fn(name, desc, ctx);
	}
}

void tl_cnt_sysfs_foreach(tl_cnt_list_fn fn, void *ctx)
{
	struct dirent **pmus = NULL;
	int n, i;

	n = scan_pmus(&pmus);
	for (i = 0; i < n; i++)
		pmu_foreach(pmus[i]->d_name, fn, ctx);
	free_names(pmus, n);
}

/* Hybrid CPUs (Intel's P- and E-cores) have one core PMU per kind of core,
 * cpu_core, cpu_atom (cpu_lowpower on newer parts), each with a "cpus" list,
 * and no plain "cpu" PMU. */
size_t tl_cnt_sysfs_hybrid(struct tl_cnt_hpmu *out, size_t max)
{
	struct dirent **pmus = NULL;
	char path[512], val[64];
	size_t k = 0;
	int n, i;
	char *end;

	if (path_exists(pmu_path(path, sizeof(path), "cpu", NULL, NULL, NULL)))
		return 0;
	n = scan_pmus(&pmus);
	for (i = 0; i < n && k < max; i++) {
		const char *nm = pmus[i]->d_name;
		unsigned long t;

		if (strncmp(nm, "cpu_", 4) || strlen(nm) >= sizeof(out->name) ||
		    !path_exists(pmu_path(path, sizeof(path), nm, "cpus", NULL, NULL)) ||
		    read_small(pmu_path(path, sizeof(path), nm, "type", NULL, NULL), val, sizeof(val)) <= 0)
			continue;
		errno = 0;
		t = strtoul(val, &end, 10);
		if (errno || *end || t == 0 || t > UINT32_MAX)
			continue;
		snprintf(out[k].name, sizeof(out[k].name), "%s", nm);
		out[k].type = (uint32_t)t;
		k++;
	}
	free_names(pmus, n);
	return k >= 2 ? k : 0;
}

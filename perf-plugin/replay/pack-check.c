/* SPDX-License-Identifier: MIT */
/* pack's check that its ops run where it targets (pack-check.h). One call
 * with no warm-up tells whether the op exists in this torch, has a kernel
 * (or a portable stand-in) on the device, and takes the arguments the trace
 * recorded; timing it would say nothing a replay does not say better. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay/pack-check.h"

/* A probe that hangs is a probe that fails: no op of a trace needs minutes
 * for one call, and a pack should not wait ten of them (--timeout's
 * default). */
#define PROBE_TIMEOUT_S 120.0

int pack_check_init(struct pack_check *pc, const struct replay_opts *ro, struct tl_worker *w, bool explicit_uids,
		    const char *why_not)
{
	const cJSON *v;

	memset(pc, 0, sizeof(*pc));
	pc->ro = *ro;
	pc->ro.iters = 1;
	pc->ro.warmup = 0;
	pc->ro.iters_given = true;
	pc->ro.min_time_s = 0;
	pc->ro.progress = NULL;
	if (pc->ro.timeout_s <= 0 || pc->ro.timeout_s > PROBE_TIMEOUT_S)
		pc->ro.timeout_s = PROBE_TIMEOUT_S;
	pc->explicit_uids = explicit_uids;
	snprintf(pc->where, sizeof(pc->where), "on %s here", ro->device ? ro->device : "cpu");
	pc->verdicts = cJSON_CreateObject();
	if (!pc->verdicts)
		return -ENOMEM;
	if (!w) {
		snprintf(pc->unchecked, sizeof(pc->unchecked), "%s", why_not ? why_not : "no worker");
		return 0;
	}
	pc->w = w;
	v = cJSON_GetObjectItemCaseSensitive(tl_worker_hello(w), "torch");
	snprintf(pc->torch, sizeof(pc->torch), "%s", cJSON_IsString(v) ? v->valuestring : "?");
	return 0;
}

/* @msg on one line of at most @cap - 1 bytes, cut at a space with "..." */
static void short_reason(const char *msg, char *out, size_t cap)
{
	size_t n = strcspn(msg, "\n"), keep;

	if (n < cap) {
		snprintf(out, cap, "%.*s", (int)n, msg);
		return;
	}
	keep = cap - 4;
	while (keep > cap / 2 && msg[keep] != ' ')
		keep--;
	snprintf(out, cap, "%.*s...", (int)keep, msg);
}

int pack_check_runs(void *ctx, cJSON *entry)
{
	struct pack_check *pc = ctx;
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(entry, "uid");
	const char *op = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(entry, "op_name"));
	const char *st, *err, *as;
	char key[32], reason[200], verdict[256];
	cJSON *reply;
	bool tty = isatty(STDERR_FILENO);
	int ok;

	if (!pc->w)
		return 1;
	snprintf(key, sizeof(key), "%.0f", cJSON_IsNumber(u) ? u->valuedouble : -1.0);
	if (tty)
		fprintf(stderr, "\r\033[Ktlreplay: pack: does UID %s %.50s run %s?", key, op ? op : "?", pc->where);
	reply = replay_one(&pc->ro, pc->w, entry, NULL, NULL);
	if (tty)
		fputs("\r\033[K", stderr);
	if (!reply) {
		fprintf(stderr, "tlreplay: pack: out of memory checking UID %s\n", key);
		return 0;
	}
	st = reply_status(reply);
	ok = !strcmp(st, "ok");
	if (ok) {
		/* "aiter::x (as aten::y)": what this torch ran in the op's place */
		as = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(reply, "op"));
		as = as ? strstr(as, " (as ") : NULL;
		if (as)
			snprintf(verdict, sizeof(verdict), "yes, as %.*s", (int)strcspn(as + 5, ")"), as + 5);
		else
			snprintf(verdict, sizeof(verdict), "yes");
		pc->ran++;
	} else {
		err = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(reply, "error"));
		short_reason(err ? err : st, reason, sizeof(reason));
		snprintf(verdict, sizeof(verdict), "no: %s", reason);
		pc->refused++;
		if (pc->explicit_uids)
			fprintf(stderr, "tlreplay: pack: UID %s %s does not run %s (%s); packed as asked\n", key,
				op ? op : "?", pc->where, reason);
		else
			fprintf(stderr, "tlreplay: pack: left out UID %s %s: it does not run %s: %s\n", key,
				op ? op : "?", pc->where, reason);
	}
	cJSON_Delete(reply);
	/* a verdict that cannot be kept only costs the README its column entry */
	cJSON_AddStringToObject(pc->verdicts, key, verdict);
	return ok;
}

const char *pack_check_verdict(const struct pack_check *pc, double uid)
{
	char key[32];

	if (!pc->w)
		return NULL;
	snprintf(key, sizeof(key), "%.0f", uid);
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pc->verdicts, key));
}

void pack_check_done(struct pack_check *pc)
{
	cJSON_Delete(pc->verdicts);
	pc->verdicts = NULL;
}

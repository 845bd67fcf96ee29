/* SPDX-License-Identifier: MIT */
/* pack's check that the ops it packs run where it targets (--device, the
 * CPU by default): each entry is replayed once, with no warm-up, by a worker
 * here on that device. A selection (--top, --launchers, --filter) leaves
 * out what does not run and takes the next op of its ranking; explicit UIDs
 * are packed as asked, each one that does not run named with why. Where no
 * worker can check (no torch here, the device is not here, --no-check),
 * nothing is left out and the README says the ops were not checked. */
#ifndef TLREPLAY_PACK_CHECK_H
#define TLREPLAY_PACK_CHECK_H

#include <stdbool.h>

#include <cjson/cJSON.h>
#include <tlreplay/replay.h>

#include "replay/replay-common.h"

struct pack_check {
	struct replay_opts ro; /* the pack's options, cut to one call */
	struct tl_worker *w;   /* borrowed; NULL: not checked */
	bool explicit_uids;    /* UIDs given: kept even when they do not run */
	char where[64];	       /* "on cpu here", for messages */
	char unchecked[256];   /* why nothing was checked ("" when it was) */
	char torch[64];	       /* the checking torch's version */
	cJSON *verdicts;       /* {"UID": "yes" | "yes, as OP" | "no: why"} */
	size_t ran, refused;
};

/* Set up the check of @ro->device with worker @w (borrowed, may be NULL:
 * then @why_not says why nothing can be checked). 0, or -ENOMEM. */
int pack_check_init(struct pack_check *pc, const struct replay_opts *ro, struct tl_worker *w, bool explicit_uids,
		    const char *why_not);
/* ir_select.runs: replays @entry once; 1 when it ran (or nothing is
 * checked), else 0 after one stderr line naming the op and why. */
int pack_check_runs(void *ctx, cJSON *entry);
/* The README's words for the entry with UID @uid: "yes", "yes, as OP",
 * "no: why", or NULL when not checked. */
const char *pack_check_verdict(const struct pack_check *pc, double uid);
void pack_check_done(struct pack_check *pc);

#endif

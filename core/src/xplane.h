/* SPDX-License-Identifier: MIT */
/* JAX/XLA profiles: the XSpace protobuf the profiler writes (*.xplane.pb)
 * and the Chrome-trace JSON that XProf's trace viewer makes of it.
 *
 * An XSpace is turned into that same JSON, in memory (xplane.c), and loaded
 * like any other trace; then both kinds of XProf trace get their event kinds
 * from their process and thread names (xplane_kinds.c), since XProf writes no
 * categories. docs/jax.md has the whole mapping. */
#ifndef TL_XPLANE_H
#define TL_XPLANE_H

#include "file_read.h"

struct tl_trace;

/* XProf's trace-viewer process ids: devices 1..500 (plane id + 1), custom
 * planes 501..700, host threads 701 (tsl/profiler/utils/trace_utils.h). */
#define TL_XP_FIRST_DEVICE_PID 1
#define TL_XP_LAST_DEVICE_PID 500
#define TL_XP_FIRST_CUSTOM_PID 501
#define TL_XP_LAST_CUSTOM_PID 700
#define TL_XP_HOST_PID 701

/* True when @p (@len bytes, gzip already inflated) holds an XSpace protobuf
 * rather than JSON: judged from the content only. */
bool tl_xplane_sniff(const char *p, size_t len);

/* Write the trace-viewer JSON of the XSpace in @p into a new text (@out, to
 * release with tl_text_free()). @label names the file in error messages.
 * Returns 0, -EBADMSG (truncated or corrupt protobuf: tl_last_error() says
 * where), -ENODATA (no events to show) or -ENOMEM. */
int tl_xplane_to_json(const char *label, const char *p, size_t len, struct tl_text *out);

/* If @tr is an XProf trace (from an XSpace or XProf's JSON export), give its
 * events their kinds, correlation ids, devices and streams the way TraceLens
 * reads JAX traces (GPU streams -> kernel/memcpy, launches -> runtime,
 * py_xla and Framework Name Scope threads -> cpu_op) and set tr->xprof. Other
 * traces are left alone. Returns 0 or -ENOMEM. */
int tl_xplane_classify(struct tl_trace *tr);

#endif

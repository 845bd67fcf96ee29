/* SPDX-License-Identifier: MIT */
/* `tlreplay pack --kdb DB`: recorded kernel launches in a zip with the
 * standalone C replayer (core/record/standalone/replay.c), its Makefile and
 * a README: `make && ./replay launch-0.txt` on any machine with a CUDA
 * driver and a C compiler. */
#ifndef TLREPLAY_KPACK_H
#define TLREPLAY_KPACK_H

/* Write @out (a zip, atomically) with the launches of the database @db
 * (launch @launch only, when not NULL) under the folder @dir. Returns 0, or
 * 1 after printing why. */
int kpack_write(const char *out, const char *dir, const char *db, const char *launch);

#endif

/* SPDX-License-Identifier: MIT */
/**
 * @file tlreplay.h
 * @brief Umbrella header of libtlreplay (see common.h for the conventions).
 */
#ifndef TLREPLAY_TLREPLAY_H
#define TLREPLAY_TLREPLAY_H

#include <tlreplay/common.h>
#include <tlreplay/trace.h>
#include <tlreplay/tree.h>
#include <tlreplay/analysis.h>
#include <tlreplay/idle.h>
#include <tlreplay/launch.h>
#include <tlreplay/steps.h>
#include <tlreplay/split.h>
#include <tlreplay/annotations.h>
#include <tlreplay/critpath.h>
#include <tlreplay/kernel_seq.h>
#include <tlreplay/ir.h>
#include <tlreplay/replay.h>
#include <tlreplay/energy.h>
#include <tlreplay/store.h>
#include <tlreplay/fold.h>
#include <tlreplay/output.h>
#include <tlreplay/input.h>
#include <tlreplay/report.h>
#include <tlreplay/report_sheets.h>
#include <tlreplay/counters.h>
#include <tlreplay/ranks.h>
#include <tlreplay/gpu.h>
#include <tlreplay/trace_diff.h>

#endif

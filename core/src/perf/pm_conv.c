/* SPDX-License-Identifier: MIT */
/* perf: TraceLens's CONV family (aten_conv, aten_conv_bwd, ConvBias_*,
 * ConvBiasReLU_*). Not written yet: the table is empty, so convolutions
 * have no perf-model class until it is. */
#include "perf/perf_internal.h"

const struct pm_class pm_conv_classes[] = {
	{0},
};

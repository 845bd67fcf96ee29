/* SPDX-License-Identifier: MIT */
/**
 * @file energy.h
 * @brief A GPU's energy counter through NVML, read around a replayed region.
 *
 * NVML is loaded with dlopen() at tl_energy_open(), never linked: where it is
 * missing (no NVIDIA driver) the open fails with -ENOENT and a message, and
 * nothing else in the library cares. $TLREPLAY_NVML_LIB names another file
 * to load instead of "libnvidia-ml.so.1" (a bundle's copy; tests point it at
 * a fake).
 *
 * The counter is nvmlDeviceGetTotalEnergyConsumption(): millijoules since
 * the driver was loaded, on Volta and newer GPUs. The energy of a region is
 * the difference of two reads. The driver refreshes the counter only every
 * 20-100 ms depending on the GPU, so each read may be up to one refresh
 * period stale: the error of a difference is at most one period's energy,
 * i.e. period / window of the result (10% for 100 ms over 1 s). Hence
 * tl_energy_min_window_s(): a region must last at least that long for the
 * difference to mean anything. The stat command exposes the counter as the
 * event "nvml/energy-gpuN/" (unit Joules, read at region begin and end);
 * when such an event is asked for it raises the replay's --min-time to
 * tl_energy_min_window_s() (unless the user asked for more), and reports
 * Joules per call (delta / timed calls) together with the window's length,
 * so that the reader can judge the resolution.
 *
 * Ownership: tl_energy_open() returns a handle freed by tl_energy_close().
 * Thread-safety: one handle must not be used from two threads at once;
 * distinct handles may (NVML counts its initialisations).
 */
#ifndef TLREPLAY_ENERGY_H
#define TLREPLAY_ENERGY_H

#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_energy;

/**
 * @brief Open GPU @p device's energy counter (NVML's index, which follows
 *        PCI order, not CUDA_VISIBLE_DEVICES).
 * @param out receives the handle; unchanged on failure.
 * @return 0;
 *         -ENOENT when NVML cannot be loaded or started (no NVIDIA driver),
 *         or there is no such GPU;
 *         -ENOTSUP when the GPU has no energy counter (before Volta);
 *         -EACCES when NVML refuses the query for lack of permission;
 *         -EIO for other NVML errors; -EINVAL for a negative @p device or
 *         NULL @p out; -ENOMEM.
 *         The reason is in tl_last_error().
 */
TL_API int tl_energy_open(int device, struct tl_energy **out);

/**
 * @brief Read the counter: millijoules since the driver was loaded.
 * @return 0, or -EIO (the GPU fell off the bus ...) with tl_last_error();
 *         -EINVAL for NULL arguments.
 */
TL_API int tl_energy_read_mj(struct tl_energy *e, uint64_t *mj);

/** @brief Shut NVML down for this handle and free it (NULL is fine). */
TL_API void tl_energy_close(struct tl_energy *e);

/**
 * @brief The shortest region, in seconds, whose energy difference is worth
 *        reporting (1.0): ten refresh periods of the slowest counters, so
 *        the staleness of the two reads costs at most about 10%.
 */
TL_API double tl_energy_min_window_s(void);

#ifdef __cplusplus
}
#endif

#endif

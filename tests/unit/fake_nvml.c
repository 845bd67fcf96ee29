/* SPDX-License-Identifier: MIT */
/* A stand-in for libnvidia-ml.so.1, built as a shared object for
 * test_energy (TLREPLAY_NVML_LIB points at it): one GPU whose energy
 * counter advances 5000 mJ per read. $FAKE_NVML_MODE picks a failure:
 * "no-driver" (nvmlInit_v2 fails as without a loaded driver), "no-energy"
 * (a pre-Volta GPU: the counter is not supported), "lost" (reads after the
 * first fail as if the GPU fell off the bus). It also counts init/shutdown
 * so the test can check they pair. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_STEP_MJ 5000ULL
#define FAKE_START_MJ 123456789ULL

struct nvml_device { int index; };

static struct nvml_device gpu0 = { 0 };
static unsigned long long counter = FAKE_START_MJ;
static int reads;
static int inits;

static int mode_is(const char *m)
{
	const char *s = getenv("FAKE_NVML_MODE");

	return s && !strcmp(s, m);
}

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, struct nvml_device **dev);
int nvmlDeviceGetName(struct nvml_device *dev, char *buf, unsigned int len);
int nvmlDeviceGetTotalEnergyConsumption(struct nvml_device *dev, unsigned long long *mj);
const char *nvmlErrorString(int r);
int fake_nvml_inits(void);

int nvmlInit_v2(void)
{
	if (mode_is("no-driver"))
		return 9;	/* NVML_ERROR_DRIVER_NOT_LOADED */
	inits++;
	return 0;
}

int nvmlShutdown(void)
{
	inits--;
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
	*n = 1;
	return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, struct nvml_device **dev)
{
	if (i != 0)
		return 2;	/* NVML_ERROR_INVALID_ARGUMENT */
	*dev = &gpu0;
	return 0;
}

int nvmlDeviceGetName(struct nvml_device *dev, char *buf, unsigned int len)
{
	(void)dev;
	snprintf(buf, len, "%s", mode_is("no-energy") ? "Fake P100" : "Fake H100");
	return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(struct nvml_device *dev, unsigned long long *mj)
{
	if (dev != &gpu0)
		return 2;
	if (mode_is("no-energy"))
		return 3;	/* NVML_ERROR_NOT_SUPPORTED */
	if (mode_is("lost") && reads++ > 0)
		return 15;	/* NVML_ERROR_GPU_IS_LOST */
	*mj = counter;
	counter += FAKE_STEP_MJ;
	return 0;
}

const char *nvmlErrorString(int r)
{
	switch (r) {
	case 2: return "Invalid Argument";
	case 3: return "Not Supported";
	case 9: return "Driver Not Loaded";
	case 15: return "GPU is lost";
	default: return "Unknown Error";
	}
}

/* not NVML: lets the test check that every init was shut down */
int fake_nvml_inits(void)
{
	return inits;
}

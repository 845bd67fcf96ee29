/* SPDX-License-Identifier: MIT */
/* Errors of libtlreplay_gpu.so: the thread's last message (tlg_error()) and
 * the translation of CUPTI, NVPW and CUDA result codes into -errno and one
 * line. Every other file reports through here, so it depends on none. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpu_internal.h"

static _Thread_local char last_error[1024];

int tlg_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return err;
}

const char *tlg_error(void)
{
	return last_error;
}

/* CUptiResult values, by number: older cupti_result.h lack the newer ones. */
enum {
	R_INVALID_DEVICE = 2,
	R_OUT_OF_MEMORY = 8,
	R_NOT_COMPATIBLE = 14,
	R_INVALID_METRIC_NAME = 17,
	R_HARDWARE_BUSY = 26,
	R_NOT_SUPPORTED = 27,
	R_VIRTUALIZED_DEVICE_NOT_SUPPORTED = 33,
	R_INSUFFICIENT_PRIVILEGES = 35,
	R_OLD_PROFILER_API_INITIALIZED = 36,
	R_LEGACY_PROFILER_NOT_SUPPORTED = 38,
	R_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES = 40,
	R_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED = 41,
	R_CMP_DEVICE_NOT_SUPPORTED = 42,
	R_MIG_DEVICE_NOT_SUPPORTED = 43,
	R_SLI_DEVICE_NOT_SUPPORTED = 44,
	R_WSL_DEVICE_NOT_SUPPORTED = 45,
	R_INVALID_CHIP_NAME = 46,
};

int tlg_cupti_fail(const struct tlg_cupti *c, const char *what, CUptiResult r)
{
	const char *name = NULL, *text = NULL;
	char num[32];
	int err;

	switch ((int)r) {
	case R_INSUFFICIENT_PRIVILEGES:
	case R_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
		return tlg_fail(-EACCES, "%s (%s: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)", TLG_PERM_MSG,
				what);
	case R_INVALID_DEVICE:
	case R_NOT_COMPATIBLE:
	case R_NOT_SUPPORTED:
	case R_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
	case R_LEGACY_PROFILER_NOT_SUPPORTED:
	case R_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
	case R_CMP_DEVICE_NOT_SUPPORTED:
	case R_MIG_DEVICE_NOT_SUPPORTED:
	case R_SLI_DEVICE_NOT_SUPPORTED:
	case R_WSL_DEVICE_NOT_SUPPORTED:
	case R_INVALID_CHIP_NAME:
		err = -ENOTSUP;
		break;
	case R_HARDWARE_BUSY:
	case R_OLD_PROFILER_API_INITIALIZED:
		err = -EBUSY;
		break;
	case R_INVALID_METRIC_NAME:
		err = -ENOENT;
		break;
	case R_OUT_OF_MEMORY:
		err = -ENOMEM;
		break;
	default:
		err = -EIO;
		break;
	}
	if (c && c->result_string && c->result_string(r, &name) != CUPTI_SUCCESS)
		name = NULL;
	if (c && c->error_message && c->error_message(r, &text) != CUPTI_SUCCESS)
		text = NULL;
	if (!name) {
		snprintf(num, sizeof(num), "CUPTI error %d", (int)r);
		name = num;
	}
	if (text && *text && strcmp(text, name))
		return tlg_fail(err, "%s: %s (%s)", what, name, text);
	return tlg_fail(err, "%s: %s", what, name);
}

int tlg_nvpw_fail(const char *what, NVPA_Status s)
{
	static const char *const names[] = {
		"SUCCESS", "ERROR", "INTERNAL_ERROR", "NOT_INITIALIZED", "NOT_LOADED",
		"FUNCTION_NOT_FOUND", "NOT_SUPPORTED", "NOT_IMPLEMENTED", "INVALID_ARGUMENT",
		"INVALID_METRIC_ID", "DRIVER_NOT_LOADED", "OUT_OF_MEMORY", "INVALID_THREAD_STATE",
		"FAILED_CONTEXT_ALLOC", "UNSUPPORTED_GPU", "INSUFFICIENT_DRIVER_VERSION",
		"OBJECT_NOT_REGISTERED", "INSUFFICIENT_PRIVILEGE", "INVALID_CONTEXT_STATE",
		"INVALID_OBJECT_STATE", "RESOURCE_UNAVAILABLE", "DRIVER_LOADED_TOO_LATE",
		"INSUFFICIENT_SPACE", "OBJECT_MISMATCH", "VIRTUALIZED_DEVICE_NOT_SUPPORTED",
		"PROFILING_NOT_ALLOWED",
	};
	const char *name = (size_t)s < sizeof(names) / sizeof(names[0]) ? names[s] : "UNKNOWN";
	int err;

	switch ((int)s) {
	case 17:	/* INSUFFICIENT_PRIVILEGE */
	case 25:	/* PROFILING_NOT_ALLOWED */
		return tlg_fail(-EACCES, "%s (%s: NVPA_STATUS_%s)", TLG_PERM_MSG, what, name);
	case 6:		/* NOT_SUPPORTED */
	case 14:	/* UNSUPPORTED_GPU */
	case 15:	/* INSUFFICIENT_DRIVER_VERSION */
	case 24:	/* VIRTUALIZED_DEVICE_NOT_SUPPORTED */
		err = -ENOTSUP;
		break;
	case 9:		/* INVALID_METRIC_ID */
	case 10:	/* DRIVER_NOT_LOADED */
		err = -ENOENT;
		break;
	case 11:
		err = -ENOMEM;
		break;
	case 20:	/* RESOURCE_UNAVAILABLE */
		err = -EBUSY;
		break;
	default:
		err = -EIO;
		break;
	}
	return tlg_fail(err, "%s: NVPA_STATUS_%s (%d)", what, name, (int)s);
}

int tlg_cuda_fail(const struct tlg_cuda *cu, const char *what, CUresult r)
{
	const char *text = NULL;
	int err = -EIO;

	if (cu && cu->error_string && cu->error_string(r, &text) != CUDA_SUCCESS)
		text = NULL;
	if (r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_INVALID_DEVICE)
		err = -ENOENT;
	else if (r == CUDA_ERROR_OUT_OF_MEMORY)
		err = -ENOMEM;
	return tlg_fail(err, "%s: %s (CUDA error %d)", what, text ? text : "unknown error", (int)r);
}

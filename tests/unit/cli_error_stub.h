/* SPDX-License-Identifier: MIT */
/* cli_error() for the tests that compile CLI files in (test_chart.c,
 * test_roofline_chart.c): the message is kept in last_error for the checks
 * instead of being printed. Include once, after the CLI files. */
#ifndef TL_CLI_ERROR_STUB_H
#define TL_CLI_ERROR_STUB_H

#include <stdarg.h>
#include <stdio.h>

static char last_error[1024];

int cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return 1;
}

#endif

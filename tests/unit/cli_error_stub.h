/* SPDX-License-Identifier: MIT */
/* cli_error() and cli_check_output() for the tests that compile CLI files in
 * (test_chart.c, test_roofline_chart.c): the message is kept in last_error
 * for the checks instead of being printed. Include once, after the CLI files.
 * These tests read no trace, so no output can be one of their inputs:
 * cli_check_output() passes everything (tests/cli/test_output_is_input.sh
 * checks the real one). */
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

int cli_check_output(const char *path)
{
	(void)path;
	return 0;
}

#endif

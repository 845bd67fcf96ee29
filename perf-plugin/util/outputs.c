/* SPDX-License-Identifier: MIT */
/* What a command writes: -o FILE (or stdout) as text, CSV or JSON through
 * tlreplay/output.h (whole or not at all), number and string formatting
 * shared by the commands, JSON printed indented (cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include <tlreplay/steps.h>

#include "util/cli.h"

/* ------------------------------------------------------------------ output */

int out_open(struct out_fmt *o, const char *path)
{
	struct stat st;
	int fd, err;

	o->f = stdout;
	o->path = NULL;
	o->out = (struct tl_output){ .fd = -1, .slot = -1 };
	if (!path || !strcmp(path, "-"))
		return 0;
	if (cli_check_output(path))
		return 1;
	/* a device or FIFO (/dev/null, a pipe): written in place; renaming a
	 * file over it would replace the device */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return cli_error("%s: is a directory", path);
		o->f = fopen(path, "w");
		if (!o->f) {
			o->f = stdout;
			return cli_error("%s: %s", path, strerror(errno));
		}
		o->path = path;
		return 0;
	}
	/* an unnamed file that gets its name when whole (tlreplay/output.h) */
	err = tl_output_open(&o->out, path);
	if (err)
		return cli_lib_error(err);
	fd = dup(o->out.fd);
	o->f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!o->f) {
		if (fd >= 0)
			close(fd);
		tl_output_abort(&o->out);
		o->f = stdout;
		return cli_error("%s: %s", path, strerror(errno));
	}
	o->path = path;
	return 0;
}
int out_open_opts(struct out_fmt *o, const struct common_opts *co)
{
	if (out_open(o, co->output))
		return 1;
	o->sep = co->sep;
	o->json = co->json;
	return 0;
}

int out_close(struct out_fmt *o, bool failed)
{
	int rc = 0;

	if (!o->f)
		return 0;
	if (o->f == stdout) {
		if (fflush(stdout) || ferror(stdout))
			rc = errno == EPIPE ? 0 : cli_error("error writing output: %s", strerror(errno));
		return failed ? 1 : rc;
	}
	if (fflush(o->f) || ferror(o->f)) {
		rc = cli_error("%s: write failed: %s", o->path, strerror(errno));
		failed = true;
	}
	if (fclose(o->f) && !rc) {
		rc = cli_error("%s: write failed: %s", o->path, strerror(errno));
		failed = true;
	}
	o->f = NULL;
	if (o->out.fd < 0)	/* written in place */
		return failed || rc ? 1 : 0;
	if (failed)
		tl_output_abort(&o->out);
	else if (tl_output_commit(&o->out))
		rc = cli_lib_error(-EIO);
	return failed ? 1 : rc;
}

void fmt_pyfloat(char *buf, size_t n, double v)
{
	tl_fmt_pyfloat(buf, n, v);
}

void out_field(struct out_fmt *o, const char *s, bool last)
{
	if (!s)
		s = "";
	if (strpbrk(s, "\"\n\r") || (o->sep && *o->sep && strstr(s, o->sep))) {
		fputc('"', o->f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', o->f);
			fputc(*s, o->f);
		}
		fputc('"', o->f);
	} else {
		fputs(s, o->f);
	}
	fputs(last ? "\n" : o->sep, o->f);
}

void out_num(struct out_fmt *o, double v, bool last)
{
	char b[64];

	fmt_pyfloat(b, sizeof(b), v);
	if (o->json)
		fputs(b, o->f);
	else
		out_field(o, b, last);
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

void fmt_us(char *buf, size_t n, double us)
{
	double a = fabs(us);

	if (a >= 1e6)
		snprintf(buf, n, "%.3f s", us / 1e6);
	else if (a >= 1e3)
		snprintf(buf, n, "%.3f ms", us / 1e3);
	else
		snprintf(buf, n, "%.3f us", us);
}

static void json_pretty_at(FILE *f, const cJSON *v, int indent)
{
	char *flat = cJSON_PrintUnformatted(v);
	const cJSON *x;
	bool obj = cJSON_IsObject(v);

	if (!flat)
		return;
	if ((!cJSON_IsArray(v) && !obj) || !v->child || strlen(flat) + (size_t)indent <= 100) {
		fputs(flat, f);
		free(flat);
		return;
	}
	free(flat);
	fputc(obj ? '{' : '[', f);
	for (x = v->child; x; x = x->next) {
		fprintf(f, "\n%*s", indent + 2, "");
		if (obj) {
			json_str(f, x->string);
			fputs(": ", f);
		}
		json_pretty_at(f, x, indent + 2);
		if (x->next)
			fputc(',', f);
	}
	fprintf(f, "\n%*s%c", indent, "", obj ? '}' : ']');
}

void json_pretty(FILE *f, const cJSON *v)
{
	json_pretty_at(f, v, 0);
	fputc('\n', f);
}


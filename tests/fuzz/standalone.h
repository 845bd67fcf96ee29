/* SPDX-License-Identifier: MIT */
/* The main() of a fuzz target built without libFuzzer (-DTL_FUZZ_STANDALONE):
 * it runs LLVMFuzzerTestOneInput over the files, and the files directly
 * inside the directories, named on the command line (in name order), for
 * compilers without libFuzzer and to replay a corpus or a crash. The input
 * that crashed is named on stderr. Included once by each target, which may
 * read `verbose` (TL_FUZZ_VERBOSE set: say what each input did). */
#ifndef TL_TESTS_FUZZ_STANDALONE_H
#define TL_TESTS_FUZZ_STANDALONE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* TL_FUZZ_VERBOSE set in a standalone replay: say what happened to each input. */
static int verbose;

#ifdef TL_FUZZ_STANDALONE
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *current;

/* Name the input that crashed: write(2) is safe in a signal handler. */
static void on_crash(int sig)
{
	static const char msg[] = "fuzz: crashing input: ";

	if (current) {
		(void)!write(2, msg, sizeof(msg) - 1);
		(void)!write(2, current, strlen(current));
		(void)!write(2, "\n", 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0, r;
	int ret = -1;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			unsigned char *nb = realloc(buf, cap ? cap * 2 : 65536);

			if (!nb)
				goto out;
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: %s: read error\n", program_invocation_short_name, path);
		goto out;
	}
	current = path;
	if (verbose)
		fprintf(stderr, "%s\n", path);
	LLVMFuzzerTestOneInput(buf, len);
	current = NULL;
	ret = 0;
out:
	free(buf);
	fclose(f);
	return ret;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files directly inside @dir, in name order. */
static int run_dir(const char *dir, long *nrun)
{
	struct dirent **ents = NULL;
	int n, i, bad = 0;

	n = scandir(dir, &ents, NULL, NULL);
	if (n < 0) {
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, dir, strerror(errno));
		return -1;
	}
	qsort(ents, (size_t)n, sizeof(*ents), cmp_names);
	for (i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode)) {
			if (run_file(path))
				bad = -1;
			else
				(*nrun)++;
		}
		free(ents[i]);
	}
	free(ents);
	return bad;
}

int main(int argc, char **argv)
{
	long nrun = 0;
	int i, bad = 0;

	verbose = getenv("TL_FUZZ_VERBOSE") != NULL;
	signal(SIGABRT, on_crash);
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGFPE, on_crash);
	for (i = 1; i < argc; i++) {
		struct stat st;

		if (argv[i][0] == '-') {
			/* libFuzzer flags mean nothing here. */
			fprintf(stderr, "%s (standalone replay driver): ignoring %s\n", program_invocation_short_name, argv[i]);
			continue;
		}
		if (stat(argv[i], &st)) {
			fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, argv[i], strerror(errno));
			bad = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &nrun))
				bad = 1;
		} else if (run_file(argv[i])) {
			bad = 1;
		} else {
			nrun++;
		}
	}
	fprintf(stderr, "%s: ran %ld inputs\n", program_invocation_short_name, nrun);
	return bad;
}
#endif

#endif

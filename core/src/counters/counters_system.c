/* SPDX-License-Identifier: MIT */
/* What the system lets us count: perf_event_open(2) itself (replaceable by
 * the tests), perf_event_paranoid and capabilities, the threads of a
 * process, and the words for each way an open can fail. */
#include <dirent.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters/counters_internal.h"

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int (*tl_cnt_sys_open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		       unsigned long flags) = sys_perf_event_open;

bool tl_cnt_group_read = true;

/* ------------------------------------------------------------ policy */

static bool read_line(const char *path, const char *prefix, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n = strlen(prefix);
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(buf, (int)size, f))
		found = !strncmp(buf, prefix, n);
	fclose(f);
	return found;
}

void tl_cnt_policy_get(struct tl_cnt_policy *p)
{
	char line[256];
	unsigned long long caps;

	p->paranoid = 2;	/* the kernel's default when the file cannot be read */
	if (read_line(PARANOID_PATH, "", line, sizeof(line)))
		p->paranoid = atoi(line);
	p->privileged = false;
	if (read_line("/proc/self/status", "CapEff:", line, sizeof(line)) &&
	    sscanf(line + 7, "%llx", &caps) == 1)
		p->privileged = (caps >> CAP_SYS_ADMIN_BIT & 1) || (caps >> CAP_PERFMON_BIT & 1);
}

/* ------------------------------------------------------------ threads */

int tl_cnt_threads(pid_t pid, pid_t **tids, size_t *n)
{
	TL_VEC(pid_t) v = { 0 };
	char path[64];
	struct dirent *d;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == EACCES ? tl_err(-EACCES, "cannot list the threads of pid %d (%s: %s)",
						(int)pid, path, strerror(errno))
				       : tl_err(-ESRCH, "no process %d to count (%s: %s)", (int)pid,
						path, strerror(errno));
	while (!err && (d = readdir(dir)))
		if (d->d_name[0] >= '0' && d->d_name[0] <= '9')
			err = tl_vec_push(&v, (pid_t)atoi(d->d_name));
	closedir(dir);
	if (!err && !v.n)
		err = tl_err(-ESRCH, "process %d has no threads left to count", (int)pid);
	if (err) {
		tl_vec_free(&v);
		return err;
	}
	*tids = v.v;
	*n = v.n;
	return 0;
}

/* ------------------------------------------------------------ errors */

bool tl_cnt_errno_unsupported(int err)
{
	switch (err) {
	case ENOENT: case EOPNOTSUPP: case ENODEV: case EINVAL: case ENOSPC: case EBUSY:
	case E2BIG: case EOVERFLOW:
		return true;
	default:
		return false;
	}
}

const char *tl_cnt_errno_why(int err)
{
	switch (err) {
	case ENOENT:
		return "the PMU does not have this event (ENOENT; virtual machines often expose "
		       "no hardware counters)";
	case EOPNOTSUPP:
		return "the PMU cannot count it this way (EOPNOTSUPP: a modifier such as :p or an "
		       "exclusion it lacks)";
	case ENODEV:
		return "no such PMU on this machine (ENODEV)";
	case EINVAL:
		return "the kernel or the PMU rejects it (EINVAL: an encoding, modifier or bit it "
		       "does not take, or a PMU that counts whole CPUs only)";
	case ENOSPC:
		return "no free counter or slot for it (ENOSPC)";
	case EBUSY:
		return "its counters are in use (EBUSY: another profiler or the NMI watchdog)";
	case E2BIG:
		return "the kernel is older than the attributes it needs (E2BIG)";
	default:
		return "the kernel refused it";
	}
}

static const char *paranoid_meaning(int paranoid)
{
	if (paranoid >= 3)
		return "on Debian and Ubuntu kernels, no counting at all for unprivileged users; "
		       "elsewhere as 2";
	if (paranoid == 2)
		return "user space only, in one's own processes";
	if (paranoid == 1)
		return "user and kernel space in one's own processes";
	return "whole CPUs too";
}

char *tl_cnt_paranoid_msg(char *buf, size_t size, int paranoid, bool privileged,
			  const char *event, pid_t pid, bool kernel, int err)
{
	int need = kernel ? 1 : 2;
	size_t n;

	n = (size_t)snprintf(buf, size, "not allowed to count '%s' in process %d (%s); "
			     "/proc/sys/kernel/perf_event_paranoid is %d (%s)", event, (int)pid,
			     err == EPERM ? "EPERM" : "EACCES", paranoid, paranoid_meaning(paranoid));
	if (n >= size)
		return buf;
	if (!privileged && paranoid > need)
		snprintf(buf + n, size - n, "; counting %s needs %d or less: sysctl -w "
			 "kernel.perf_event_paranoid=%d (as root), or run with CAP_PERFMON",
			 kernel ? "kernel space (without :u)" : "user space", need, need);
	else
		snprintf(buf + n, size - n, ", which %s, so something else refused: the process "
			 "belongs to another user (counting needs ptrace access to it), or a "
			 "seccomp filter blocks perf_event_open (containers do by default)",
			 privileged ? "does not apply to this privileged process (CAP_PERFMON or "
				      "CAP_SYS_ADMIN)" : "allows it");
	return buf;
}

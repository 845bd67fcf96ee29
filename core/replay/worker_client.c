/* SPDX-License-Identifier: MIT */
/* The C side of a replay worker: start the chosen Python on
 * tlreplay_worker.py, speak JSON lines over a socket pair (MSG_NOSIGNAL: a
 * worker that dies cannot SIGPIPE us), drain its stderr so it never blocks,
 * and turn its death into an error that says how it died. */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <tlreplay/replay.h>

#include "base/base_internal.h"

#define ERR_TAIL 4096

struct tl_worker {
	struct tl_worker_opts opts;
	char *python, *script;
	pid_t pid;
	int sock;		/* our end of the protocol socket */
	int err;		/* read end of the worker's stderr, -1 if passed through */
	bool dead;
	cJSON *hello;
	int next_id;
	char *rbuf;		/* partial protocol line */
	size_t rlen, rcap;
	char tail[ERR_TAIL];	/* last bytes of stderr (ring) */
	size_t tail_pos;
	bool tail_wrapped;
};

/* ------------------------------------------------------------------ paths */

static bool is_file(const char *p)
{
	struct stat st;

	return p && !stat(p, &st) && S_ISREG(st.st_mode);
}

const char *tl_worker_script_path(const char *argv0_dir)
{
	/* per thread: two threads asking at once must not write one buffer */
	static _Thread_local char found[PATH_MAX + 64];
	static const char *const rel[] = {
		"../share/tlreplay/replay/tlreplay_worker.py",
		"share/tlreplay/replay/tlreplay_worker.py",
		"../core/replay/tlreplay_worker.py",
		"../../core/replay/tlreplay_worker.py",
	};
	const char *env = getenv("TLREPLAY_WORKER");
	char dir[PATH_MAX - 64];
	size_t i;

	if (env && *env)
		return is_file(env) ? env : NULL;
	if (argv0_dir) {
		snprintf(dir, sizeof(dir), "%s", argv0_dir);
	} else {
		ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
		char *slash;

		if (n <= 0)
			return NULL;
		dir[n] = 0;
		slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
	}
	for (i = 0; i < TL_ARRAY_SIZE(rel); i++) {
		snprintf(found, sizeof(found), "%s/%s", dir, rel[i]);
		if (is_file(found))
			return found;
	}
	return NULL;
}

/* ------------------------------------------------------------------ stderr */

static void tail_add(struct tl_worker *w, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		w->tail[w->tail_pos++] = s[i];
		if (w->tail_pos == ERR_TAIL) {
			w->tail_pos = 0;
			w->tail_wrapped = true;
		}
	}
}

/* The last few lines of the worker's stderr, on one line. */
static void tail_get(const struct tl_worker *w, char *out, size_t n)
{
	char buf[ERR_TAIL + 1];
	size_t len = 0, i;
	char *p, *start;

	if (w->tail_wrapped) {
		memcpy(buf, w->tail + w->tail_pos, ERR_TAIL - w->tail_pos);
		len = ERR_TAIL - w->tail_pos;
	}
	memcpy(buf + len, w->tail, w->tail_pos);
	len += w->tail_pos;
	buf[len] = 0;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = 0;
	/* A crash dump of faulthandler names the innermost frame first, then lists
	 * extension modules: the frame is what says where it died. Otherwise the
	 * last line says something (Python ends with the error). */
	p = strstr(buf, "(most recent call first):\n");
	if (p && (p = strstr(p, "File \""))) {
		start = p;
		p = strchr(start, '\n');
		if (p)
			*p = 0;
	} else {
		start = buf;
		for (p = buf; *p; p++)
			if (*p == '\n' && p[1] && strncmp(p + 1, "Extension modules:", 18))
				start = p + 1;
		p = strchr(start, '\n');
		if (p)
			*p = 0;
	}
	for (i = 0; start[i] && i + 1 < n; i++)
		out[i] = start[i] == '\t' ? ' ' : start[i];
	out[i] = 0;
}

static void drain_err(struct tl_worker *w)
{
	char buf[4096];
	ssize_t r;

	if (w->err < 0)
		return;
	while ((r = read(w->err, buf, sizeof(buf))) > 0)
		tail_add(w, buf, (size_t)r);
	if (r == 0) {
		close(w->err);
		w->err = -1;
	}
}

/* ------------------------------------------------------------------ process */

static double now_s(void)
{
	return tl_now();
}

/* Reap the worker (waiting up to @wait_s) and describe how it ended. */
static void describe_death(struct tl_worker *w, double wait_s, char *out, size_t n)
{
	int status = 0;
	double t0 = now_s();
	pid_t r = 0;
	char tail[512];

	while (w->pid > 0 && (r = waitpid(w->pid, &status, WNOHANG)) == 0 && now_s() - t0 < wait_s)
		usleep(10000);
	if (w->pid > 0 && r == 0) {
		kill(w->pid, SIGKILL);
		r = waitpid(w->pid, &status, 0);
	}
	drain_err(w);
	tail_get(w, tail, sizeof(tail));
	if (r == w->pid && WIFSIGNALED(status))
		snprintf(out, n, "killed by signal %d (%s)%s%s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)), *tail ? "; its last words: " : "", tail);
	else if (r == w->pid && WIFEXITED(status))
		snprintf(out, n, "exited with status %d%s%s", WEXITSTATUS(status),
			 *tail ? "; its last words: " : "", tail);
	else
		snprintf(out, n, "vanished%s%s", *tail ? "; its last words: " : "", tail);
	w->pid = -1;
	w->dead = true;
}

static int spawn(struct tl_worker *w)
{
	int sv[2] = { -1, -1 }, ep[2] = { -1, -1 };
	pid_t pid, parent;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return tl_err(-errno, "cannot create the worker's socket: %s", strerror(errno));
	if (!w->opts.verbose && pipe2(ep, O_CLOEXEC)) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		return tl_err(-e, "cannot create the worker's stderr pipe: %s", strerror(e));
	}
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		if (ep[0] >= 0) {
			close(ep[0]);
			close(ep[1]);
		}
		return tl_err(-e, "cannot start the worker: %s", strerror(e));
	}
	if (pid == 0) {
		/* child: protocol on fds 3 and 4 (the same socket), stderr captured */
		int s = fcntl(sv[1], F_DUPFD, 10), e = ep[1] >= 0 ? fcntl(ep[1], F_DUPFD, 10) : -1;
		int devnull = open("/dev/null", O_RDONLY);

		/* The worker must not outlive us: on a GPU it holds the device, and a
		 * replay runs on for its whole timeout. The kernel sends SIGKILL when the
		 * thread that forked exits (the thread, not the process: start workers
		 * from a thread that outlives them, as tlreplay's main thread does); if
		 * the parent died before prctl, getppid() is no longer it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(125);
		if (s < 0 || dup2(s, 3) < 0 || dup2(s, 4) < 0)
			_exit(126);
		if (e >= 0 && dup2(e, 2) < 0)
			_exit(126);
		if (devnull >= 0)
			dup2(devnull, 0);
		setenv("TLREPLAY_WORKER_FDS", "3,4", 1);
		setenv("PYTHONUNBUFFERED", "1", 1);
		execl(w->python, w->python, w->script, "--worker", (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", w->python, strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	if (ep[1] >= 0)
		close(ep[1]);
	w->pid = pid;
	w->sock = sv[0];
	w->err = ep[0];
	if (w->err >= 0)
		fcntl(w->err, F_SETFL, fcntl(w->err, F_GETFL) | O_NONBLOCK);
	w->dead = false;
	w->rlen = 0;
	w->tail_pos = 0;
	w->tail_wrapped = false;
	return 0;
}

static void close_fds(struct tl_worker *w)
{
	if (w->sock >= 0)
		close(w->sock);
	if (w->err >= 0)
		close(w->err);
	w->sock = w->err = -1;
}

/* ------------------------------------------------------------------ lines */

static int send_obj(struct tl_worker *w, const cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);
	size_t len, off = 0;

	if (!s)
		return -ENOMEM;
	len = strlen(s);
	s[len] = '\n';	/* overwrite the NUL: we send len + 1 bytes */
	while (off < len + 1) {
		ssize_t r = send(w->sock, s + off, len + 1 - off, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(s);
			return -EPIPE;
		}
		off += (size_t)r;
	}
	free(s);
	return 0;
}

/* Next protocol line as a cJSON object. -EPIPE on EOF, -ETIMEDOUT. */
static int recv_obj(struct tl_worker *w, double timeout_s, cJSON **out)
{
	double t0 = now_s();

	*out = NULL;
	for (;;) {
		char *nl = w->rlen ? memchr(w->rbuf, '\n', w->rlen) : NULL;
		struct pollfd pf[2];
		int np = 0, to;

		if (nl) {
			size_t n = (size_t)(nl - w->rbuf);

			*out = cJSON_ParseWithLength(w->rbuf, n);
			memmove(w->rbuf, nl + 1, w->rlen - n - 1);
			w->rlen -= n + 1;
			return *out ? 0 : -EBADMSG;
		}
		pf[np].fd = w->sock;
		pf[np++].events = POLLIN;
		if (w->err >= 0) {
			pf[np].fd = w->err;
			pf[np++].events = POLLIN;
		}
		to = -1;
		if (timeout_s > 0) {
			double left = timeout_s - (now_s() - t0);

			if (left <= 0)
				return -ETIMEDOUT;
			to = (int)(left * 1000) + 1;
		}
		if (poll(pf, (nfds_t)np, to) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (np > 1 && pf[1].revents)
			drain_err(w);
		if (pf[0].revents) {
			ssize_t r;

			if (tl_grow((void **)&w->rbuf, &w->rcap, w->rlen + 65536, 1))
				return -ENOMEM;
			r = recv(w->sock, w->rbuf + w->rlen, w->rcap - w->rlen, 0);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return -EPIPE;
			w->rlen += (size_t)r;
		}
	}
}

static int died(struct tl_worker *w, const char *when)
{
	char how[700];

	describe_death(w, 2.0, how, sizeof(how));
	return tl_err(-EPIPE, "the replay worker (%s) died %s: %s", w->python, when, how);
}

/* ------------------------------------------------------------------ public */

static int start(struct tl_worker *w)
{
	cJSON *req = NULL, *rep = NULL;
	const cJSON *st;
	double timeout = w->opts.start_timeout_s > 0 ? w->opts.start_timeout_s : 120;
	int err;

	err = spawn(w);
	if (err)
		return err;
	req = cJSON_CreateObject();
	if (!req)
		return tl_err(-ENOMEM, "out of memory");
	cJSON_AddStringToObject(req, "cmd", "hello");
	cJSON_AddNumberToObject(req, "id", 0);
	err = send_obj(w, req);
	cJSON_Delete(req);
	if (!err)
		err = recv_obj(w, timeout, &rep);
	if (err == -ETIMEDOUT) {
		kill(w->pid, SIGKILL);
		describe_death(w, 1.0, (char[8]){ 0 }, 8);
		close_fds(w);
		return tl_err(-ETIMEDOUT, "%s did not start the replay worker within %.0f s", w->python,
			      timeout);
	}
	if (err) {
		char how[700];

		describe_death(w, 5.0, how, sizeof(how));
		close_fds(w);
		return tl_err(-ENOEXEC, "%s cannot run the replay worker: %s", w->python, how);
	}
	st = cJSON_GetObjectItemCaseSensitive(rep, "status");
	if (!cJSON_IsString(st) || strcmp(st->valuestring, "ok")) {
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(rep, "error");

		err = tl_err(-ENOEXEC, "%s cannot replay: %s", w->python,
			     cJSON_IsString(e) ? e->valuestring : "the worker refused to start");
		cJSON_Delete(rep);
		describe_death(w, 5.0, (char[8]){ 0 }, 8);
		close_fds(w);
		return err;
	}
	cJSON_Delete(w->hello);
	w->hello = rep;
	w->next_id = 1;
	return 0;
}

int tl_worker_start(const struct tl_worker_opts *opts, struct tl_worker **out)
{
	struct tl_worker *w;
	const char *py = NULL, *script = NULL;
	char found[PATH_MAX], why[128];
	int err;

	*out = NULL;
	if (opts) {
		py = opts->python;
		script = opts->script;
	}
	err = tl_python_find(py, found, sizeof(found), why, sizeof(why));
	if (err)
		return err;
	py = found;
	if (!script)
		script = tl_worker_script_path(NULL);
	if (!script || !is_file(script))
		return tl_err(-ENOENT, "cannot find tlreplay_worker.py (set TLREPLAY_WORKER to its path)");
	w = calloc(1, sizeof(*w));
	if (!w)
		return tl_err(-ENOMEM, "out of memory");
	if (opts)
		memcpy(&w->opts, opts, opts->sz < sizeof(w->opts) ? opts->sz : sizeof(w->opts));
	/* borrowed: the handle keeps copies (w->python, w->script) */
	w->opts.python = w->opts.script = NULL;
	w->python = strdup(py);
	w->script = strdup(script);
	w->sock = w->err = -1;
	w->pid = -1;
	if (!w->python || !w->script) {
		tl_worker_stop(w);
		return tl_err(-ENOMEM, "out of memory");
	}
	err = start(w);
	if (err) {
		tl_worker_stop(w);
		return err;
	}
	*out = w;
	return 0;
}

const struct cJSON *tl_worker_hello(const struct tl_worker *w)
{
	return w->hello;
}

const char *tl_worker_python(const struct tl_worker *w)
{
	return w->python;
}

pid_t tl_worker_pid(const struct tl_worker *w)
{
	return w->dead ? -1 : w->pid;
}

bool tl_worker_alive(const struct tl_worker *w)
{
	return w && !w->dead && w->pid > 0;
}

struct region_adapter {
	tl_region_fn region;
	void *ctx;
};

/* tl_worker_request()'s events: the region ones to its callback */
static int region_event(const cJSON *msg, void *ctx)
{
	const struct region_adapter *a = ctx;
	const char *ev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "event"));

	if (!a->region || !ev)
		return 0;
	if (!strcmp(ev, "region_begin"))
		return a->region(TL_REGION_BEGIN, a->ctx);
	if (!strcmp(ev, "region_end"))
		return a->region(TL_REGION_END, a->ctx);
	return 0;
}

int tl_worker_request(struct tl_worker *w, cJSON *req, tl_region_fn region, void *ctx,
		      double timeout_s, cJSON **reply)
{
	struct region_adapter a = { region, ctx };

	return tl_worker_request_events(w, req, region_event, &a, timeout_s, reply);
}

int tl_worker_request_events(struct tl_worker *w, cJSON *req, tl_worker_event_fn fn, void *ctx, double timeout_s,
			     cJSON **reply)
{
	int id, err;

	*reply = NULL;
	if (!tl_worker_alive(w))
		return tl_err(-EPIPE, "the replay worker is not running");
	id = w->next_id++;
	cJSON_DeleteItemFromObjectCaseSensitive(req, "id");
	cJSON_AddNumberToObject(req, "id", id);
	err = send_obj(w, req);
	if (err == -EPIPE)
		return died(w, "before the request");
	if (err)
		return tl_err(err, "cannot send to the replay worker");
	for (;;) {
		cJSON *m = NULL;
		const cJSON *ev, *rid;

		err = recv_obj(w, timeout_s, &m);
		if (err == -EPIPE) {
			const cJSON *op = cJSON_GetObjectItemCaseSensitive(req, "entry");

			op = op ? cJSON_GetObjectItemCaseSensitive(op, "op_name") : NULL;
			return died(w, cJSON_IsString(op) ? "replaying" : "answering");
		}
		if (err == -ETIMEDOUT) {
			kill(w->pid, SIGKILL);
			describe_death(w, 1.0, (char[8]){ 0 }, 8);
			return tl_err(-ETIMEDOUT, "the replay worker did not answer within %.0f s (killed)",
				      timeout_s);
		}
		if (err)
			return tl_err(err, "unreadable reply from the replay worker");
		ev = cJSON_GetObjectItemCaseSensitive(m, "event");
		if (cJSON_IsString(ev)) {
			int rc = 0;
			cJSON *go;

			if (fn)
				rc = fn(m, ctx);
			cJSON_Delete(m);
			go = cJSON_CreateObject();
			cJSON_AddStringToObject(go, "cmd", rc ? "stop" : "go");
			err = send_obj(w, go);
			cJSON_Delete(go);
			if (err)
				return died(w, "in the timed region");
			continue;
		}
		rid = cJSON_GetObjectItemCaseSensitive(m, "id");
		if (cJSON_IsNumber(rid) && (int)rid->valuedouble == id) {
			*reply = m;
			return 0;
		}
		cJSON_Delete(m);	/* a stray message: ignore */
	}
}

int tl_worker_restart(struct tl_worker *w)
{
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		describe_death(w, 1.0, (char[8]){ 0 }, 8);
	}
	close_fds(w);
	return start(w);
}

void tl_worker_stop(struct tl_worker *w)
{
	if (!w)
		return;
	if (w->pid > 0) {
		cJSON *q = cJSON_CreateObject();

		if (q) {
			cJSON_AddStringToObject(q, "cmd", "quit");
			send_obj(w, q);
			cJSON_Delete(q);
		}
		describe_death(w, 3.0, (char[8]){ 0 }, 8);
	}
	close_fds(w);
	cJSON_Delete(w->hello);
	free(w->rbuf);
	free(w->python);
	free(w->script);
	free(w);
}

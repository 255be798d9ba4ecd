/* The symbolizer process: llvm-symbolizer started once per run and fed
 * batches of "FILE ADDRESS" lines on its stdin, one JSON line back per
 * query.  Requests and answers are interleaved with poll(), so that a big
 * batch never deadlocks on two full pipes, and a process that says nothing
 * for the timeout is killed: a hung symbolizer never hangs hangar.  Its
 * stdin is a socket written with MSG_NOSIGNAL, so that its death is an
 * error here, not a SIGPIPE that kills the whole run. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symbols_internal.h"

#define MAX_ANSWER (16 * 1024 * 1024) /* bytes of one batch's answers */

extern char **environ;

struct sym_proc {
	pid_t pid;
	int in;   /* our end of its stdin (a socket) */
	int out;  /* our end of its stdout (a pipe) */
};

int sym_proc_start(const char *const *argv, struct sym_proc **out, char *why, size_t why_size)
{
	*out = NULL;
	int in[2] = {-1, -1}, res[2] = {-1, -1};
	struct sym_proc *p = calloc(1, sizeof *p);
	if (!p)
		return HG_ENOMEM;
	posix_spawn_file_actions_t fa;
	int rc = HG_EIO, err = 0;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, in) != 0 || pipe(res) != 0) {
		err = errno;
		goto out;
	}
	/* Close-on-exec, so that another process hangar starts holds none of
	 * them (and the symbolizer sees its input end). */
	for (int i = 0; i < 2; i++) {
		fcntl(in[i], F_SETFD, FD_CLOEXEC);
		fcntl(res[i], F_SETFD, FD_CLOEXEC);
	}
	posix_spawn_file_actions_init(&fa);
	/* stderr stays hangar's: the symbolizer's own complaints are rare
	 * and worth seeing.  dup2 clears O_CLOEXEC on the child's copies. */
	posix_spawn_file_actions_adddup2(&fa, in[1], 0);
	posix_spawn_file_actions_adddup2(&fa, res[1], 1);
	err = posix_spawnp(&p->pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err == 0)
		rc = 0;
out:
	if (rc != 0)
		snprintf(why, why_size, "cannot run %s: %s", argv[0], strerror(err));
	if (in[1] >= 0)
		close(in[1]);
	if (res[1] >= 0)
		close(res[1]);
	if (rc != 0) {
		if (in[0] >= 0)
			close(in[0]);
		if (res[0] >= 0)
			close(res[0]);
		free(p);
		return rc;
	}
	p->in = in[0];
	p->out = res[0];
	fcntl(p->in, F_SETFL, fcntl(p->in, F_GETFL) | O_NONBLOCK);
	fcntl(p->out, F_SETFL, fcntl(p->out, F_GETFL) | O_NONBLOCK);
	*out = p;
	return 0;
}

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

struct answer {
	char *buf;
	size_t len, cap, lines;
};

/* Takes what the process wrote; 1 at its end of output, 0, or an error. */
static int take(struct sym_proc *p, struct answer *a, char *why, size_t why_size)
{
	for (;;) {
		if (a->cap - a->len < 65536 + 1) {
			if (a->cap >= MAX_ANSWER) {
				snprintf(why, why_size, "the symbolizer wrote more than %d MiB for one batch",
					 MAX_ANSWER >> 20);
				return HG_EIO;
			}
			size_t ncap = a->cap ? a->cap * 2 : 262144;
			char *nb = realloc(a->buf, ncap);
			if (!nb)
				return HG_ENOMEM;
			a->buf = nb;
			a->cap = ncap;
		}
		ssize_t n = read(p->out, a->buf + a->len, a->cap - a->len - 1);
		if (n > 0) {
			for (ssize_t i = 0; i < n; i++)
				a->lines += a->buf[a->len + (size_t)i] == '\n';
			a->len += (size_t)n;
			continue;
		}
		if (n == 0)
			return 1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		snprintf(why, why_size, "reading the symbolizer: %s", strerror(errno));
		return HG_EIO;
	}
}

int sym_proc_batch(struct sym_proc *p, const char *req, size_t len, size_t n_lines,
		   long timeout_ms, char **resp, size_t *resp_len, char *why, size_t why_size)
{
	struct answer a = {0};
	size_t sent = 0;
	long last = now_ms();
	int rc = 0;
	*resp = NULL;
	*resp_len = 0;
	while (rc == 0 && a.lines < n_lines) {
		struct pollfd fds[2] = {{.fd = p->out, .events = POLLIN},
					{.fd = sent < len ? p->in : -1, .events = POLLOUT}};
		long left = timeout_ms - (now_ms() - last);
		int ready = left > 0 ? poll(fds, 2, (int)(left > 60000 ? 60000 : left)) : 0;
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0) {
			snprintf(why, why_size, "poll: %s", strerror(errno));
			rc = HG_EIO;
		} else if (ready == 0 && now_ms() - last >= timeout_ms) {
			snprintf(why, why_size, "the symbolizer said nothing for %ld ms (killed)",
				 timeout_ms);
			rc = HG_EIO;
		}
		if (rc != 0 || ready == 0)
			continue;
		if (fds[1].revents & (POLLOUT | POLLERR | POLLHUP)) {
			ssize_t n = send(p->in, req + sent, len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n > 0) {
				sent += (size_t)n;
				last = now_ms();
			} else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				snprintf(why, why_size, "the symbolizer ended early (%s)", strerror(errno));
				rc = HG_EIO;
			}
		}
		if (rc == 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			size_t before = a.len;
			int t = take(p, &a, why, why_size);
			if (a.len > before)
				last = now_ms();
			if (t == 1 && a.lines < n_lines) {
				snprintf(why, why_size, "the symbolizer ended after %zu of %zu answers",
					 a.lines, n_lines);
				rc = HG_EIO;
			} else if (t < 0) {
				rc = t;
			}
		}
	}
	if (rc != 0) {
		free(a.buf);
		return rc;
	}
	a.buf[a.len] = '\0';
	*resp = a.buf;
	*resp_len = a.len;
	return 0;
}

void sym_proc_stop(struct sym_proc *p)
{
	if (!p)
		return;
	close(p->in); /* end of input: llvm-symbolizer exits */
	close(p->out);
	int status;
	for (int i = 0; i < 50; i++) { /* up to half a second, then no more waiting */
		pid_t r = waitpid(p->pid, &status, WNOHANG);
		if (r == p->pid || (r < 0 && errno != EINTR)) {
			free(p);
			return;
		}
		struct timespec t = {0, 10 * 1000 * 1000};
		nanosleep(&t, NULL);
	}
	kill(p->pid, SIGKILL);
	while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
		;
	free(p);
}

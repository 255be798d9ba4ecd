/* Native waits for hg_threads_blocker: the innermost frames block in the
 * kernel (a futex, a mutex, epoll, a read, fsync, a sleep), and who made
 * the call is neither the runtime (ART suspending threads for the dump
 * itself or a GC, a debugger) nor an idle looper or run loop: only then is
 * the wait the cause, and the line says which call and where. */
#include <stdbool.h>
#include <string.h>

#include "hangar/hangar.h"
#include "hangar/text.h"
#include "hangar/threads.h"
#include "threads_blocker.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The length of a native function's name without its parameters (the
 * last parenthesised group, and a " const" after it), or its "+offset";
 * a Swift "closure #1 () -> () in Feed.reload()" keeps all but the last
 * "()", an Objective-C "+[NSThread sleepForTimeInterval:]" its '+'. */
static size_t native_name_len(const char *s)
{
	size_t n = strlen(s);
	if (n > 6 && strcmp(s + n - 6, " const") == 0)
		n -= 6;
	if (n && s[n - 1] == ')') {
		int depth = 0;
		for (size_t i = n; i-- > 0;) {
			depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
			if (depth == 0)
				return i;
		}
		return n;
	}
	const char *plus = n > 1 ? memchr(s + 1, '+', n - 1) : NULL;
	return plus && is_digit(plus[1]) ? (size_t)(plus - s) : n;
}

/* A native frame's function as above, else its image's file name. */
static void put_native(hg_buf *b, const hg_frame *f)
{
	const char *name = f->method ? f->method : f->symbol;
	if (name && *name) {
		size_t n = native_name_len(name);
		while (n > 0 && name[n - 1] == ' ')
			n--;
		hg_buf_add(b, name, n ? n : strlen(name));
		return;
	}
	const char *slash = f->image ? strrchr(f->image, '/') : NULL;
	hg_buf_puts(b, slash ? slash + 1 : f->image ? f->image : "?");
}

/* Calls that block in the kernel, and the word the line uses for each. */
static const struct {
	const char *name, *word;
} native_waits[] = {
	{"syscall", "futex"}, {"__futex_wait_ex", "futex"}, {"__futex_wait", "futex"},
	{"futex_wait", "futex"}, {"pthread_mutex_lock", "mutex"},
	{"pthread_cond_wait", "condition"}, {"pthread_cond_timedwait", "condition"},
	{"__pthread_cond_timedwait", "condition"}, {"pthread_rwlock_rdlock", "rwlock"},
	{"pthread_rwlock_wrlock", "rwlock"}, {"sem_wait", "semaphore"}, {"__epoll_pwait", "epoll"},
	{"epoll_pwait", "epoll"}, {"epoll_wait", "epoll"}, {"__ppoll", "poll"}, {"ppoll", "poll"}, {"poll", "poll"},
	{"__pselect6", "poll"}, {"select", "poll"}, {"read", "read"}, {"__read_chk", "read"},
	{"pread64", "read"}, {"__pread64", "read"}, {"readv", "read"}, {"recvfrom", "read"},
	{"__recvfrom", "read"}, {"recvmsg", "read"}, {"write", "write"}, {"__write_chk", "write"},
	{"pwrite64", "write"}, {"writev", "write"}, {"sendto", "write"}, {"fsync", "fsync"},
	{"fdatasync", "fsync"}, {"__openat", "open"}, {"openat", "open"}, {"flock", "file lock"},
	{"__connect", "connect"}, {"connect", "connect"}, {"nanosleep", "sleep"},
	{"clock_nanosleep", "sleep"}, {"__clock_nanosleep", "sleep"}, {"__ioctl", "ioctl"},
	/* Apple's kernel */
	{"__psynch_mutexwait", "mutex"}, {"__psynch_cvwait", "condition"},
	{"semaphore_wait_trap", "semaphore"}, {"semaphore_timedwait_trap", "semaphore"},
	{"semaphore_wait_signal_trap", "semaphore"}, {"__psynch_rw_rdlock", "rwlock"},
	{"__psynch_rw_wrlock", "rwlock"}, {"__ulock_wait", "lock"}, {"__ulock_wait2", "lock"}, {"__semwait_signal", "sleep"},
};

/* The same at the Java level: the platform's blocking I/O natives. */
static const struct {
	const char *cls, *method, *word;
} java_waits[] = {
	{"libcore.io.Linux", "read", "read"}, {"libcore.io.Linux", "readBytes", "read"},
	{"libcore.io.Linux", "pread", "read"}, {"libcore.io.Linux", "preadBytes", "read"},
	{"libcore.io.Linux", "recvfromBytes", "read"}, {"libcore.io.Linux", "poll", "poll"},
	{"libcore.io.Linux", "write", "write"}, {"libcore.io.Linux", "writeBytes", "write"},
	{"libcore.io.Linux", "pwriteBytes", "write"}, {"libcore.io.Linux", "fsync", "fsync"},
	{"libcore.io.Linux", "fdatasync", "fsync"}, {"libcore.io.Linux", "connect", "connect"},
	{"java.io.FileDescriptor", "sync", "fsync"}, {"java.net.SocketInputStream", "socketRead0", "read"},
	{"java.net.PlainSocketImpl", "socketConnect", "connect"},
};

/* The platform's own I/O plumbing, under the frame that asked for it. */
static const char *const io_prefixes[] = {
	"java.io.", "java.nio.", "java.net.", "libcore.", "sun.nio.", "android.system.",
	"android.os.FileUtils", "com.android.okhttp.okio.", "dalvik.system.BlockGuard",
};

/* Platform I/O with no app frame: the first frame past the plumbing
 * ("SharedPreferencesImpl.writeToFile"). */
static const hg_frame *io_caller(const hg_thread *t)
{
	for (size_t i = 0; i < t->n_frames; i++)
		if (blocker_owner(&t->frames[i]) != OWNER_NONE &&
		    !blocker_has_prefix(t->frames[i].cls, io_prefixes, N_OF(io_prefixes)))
			return &t->frames[i];
	return NULL;
}

/* Frames that say the runtime or the looper waits, not the app: the
 * runtime suspending threads (for the dump itself, for a GC), a debugger,
 * an idle looper.  No blocker then. */
static bool runtime_wait(const hg_frame *f)
{
	const char *s = f->method ? f->method : f->symbol ? f->symbol : "";
	const char *img = f->image ? f->image : "";
	return strstr(s, "art::") || strstr(s, "Looper::pollOnce") || strstr(s, "nativePollOnce") ||
	       strstr(img, "libart.so") || strstr(img, "libopenjdkjvmti.so") ||
	       strstr(img, "libjdwp.so") || strstr(s, "mach_msg") || strstr(s, "CFRunLoop");
}

/* The C library and the kernel's own images: where a wait is made, never
 * who made it. */
static bool c_library(const hg_frame *f)
{
	static const char *const libs[] = {"libc.so", "libc++.so", "libm.so", "libdl.so", "linker",
					   "[vdso]", "libsystem_kernel.dylib",
					   "libsystem_pthread.dylib", "libsystem_c.dylib"};
	const char *img = f->image;
	if (!img)
		return false;
	const char *slash = strrchr(img, '/');
	img = slash ? slash + 1 : img;
	for (size_t i = 0; i < N_OF(libs); i++)
		if (strcmp(img, libs[i]) == 0)
			return true;
	return false;
}

static const char *native_word(const hg_frame *f)
{
	const char *s = f->method ? f->method : f->symbol;
	if (!s)
		return NULL;
	size_t n = strcspn(s, "(+ ");
	for (size_t i = 0; i < N_OF(native_waits); i++)
		if (strlen(native_waits[i].name) == n && strncmp(s, native_waits[i].name, n) == 0)
			return native_waits[i].word;
	return NULL;
}

/* Whether f lies in the app's own files: an APK's libraries (/data/app/),
 * an iOS app's bundle (its binary, its embedded frameworks). */
static bool app_image(const hg_threads *ts, const hg_frame *f)
{
	const hg_image *img = hg_frame_image(ts, f);
	const char *path = img && img->path ? img->path : f->image;
	return path && (strstr(path, "/data/app/") || strstr(path, "/data/data/") ||
			strstr(path, ".app/") || strstr(path, "/Bundle/Application/"));
}

static const hg_frame *top_native_app_frame(const hg_threads *ts, const hg_thread *t)
{
	for (size_t i = 0; i < t->n_frames; i++)
		if (t->frames[i].kind == HG_FRAME_NATIVE && app_image(ts, &t->frames[i]) &&
		    (t->frames[i].method || t->frames[i].symbol))
			return &t->frames[i];
	return NULL;
}

/* "native wait (futex) in Sync.run": the innermost frame blocks in the
 * kernel, and who called it (past the C library) is not the runtime (ART
 * suspending threads for the dump itself or a GC, a debugger) nor an idle
 * looper or run loop; where is the top app frame (Java, else native in
 * the app's files), else that caller. */
int blocker_native_wait(struct blocker_ctx *c, const hg_thread *t, bool *found)
{
	/* x86's vDSO enters the kernel for the call below it */
	size_t first = t->n_frames && t->frames[0].image && strstr(t->frames[0].image, "[vdso]");
	if (first >= t->n_frames)
		return 0;
	const hg_frame *f0 = &t->frames[first], *caller = NULL;
	const char *word = NULL;
	if (f0->kind == HG_FRAME_NATIVE) {
		word = native_word(f0);
		size_t i = first + 1;
		/* the word of the outermost call there: the API the code used
		 * (pthread_mutex_lock, not the syscall under it) */
		for (; i < t->n_frames && t->frames[i].kind == HG_FRAME_NATIVE; i++) {
			const char *w = native_word(&t->frames[i]);
			if (!w && !c_library(&t->frames[i]))
				break;
			if (word && w)
				word = w;
		}
		if (i < t->n_frames && runtime_wait(&t->frames[i]))
			return 0;
		if (i < t->n_frames && t->frames[i].kind == HG_FRAME_NATIVE)
			caller = &t->frames[i];
	} else {
		for (size_t k = 0; k < N_OF(java_waits) && !word; k++)
			if (blocker_is_java(f0, java_waits[k].cls, java_waits[k].method))
				word = java_waits[k].word;
	}
	if (!word)
		return 0;
	*found = true;
	hg_buf_printf(&c->line, "native wait (%s)", word);
	const hg_frame *app = blocker_top_app_frame(t, 0);
	if (!app && f0->kind == HG_FRAME_JAVA)
		app = io_caller(t);
	if (app)
		return blocker_finish_at(c, "native", " in ", app);
	const hg_frame *native = top_native_app_frame(c->ts, t);
	if (native)
		caller = native;
	hg_buf frame;
	hg_buf_init(&frame);
	if (caller) {
		put_native(&frame, caller);
		hg_buf_puts(&c->line, " in ");
		hg_buf_add(&c->line, frame.data ? frame.data : "", frame.len);
	}
	int rc = blocker_finish(c, "native", &frame);
	hg_buf_release(&frame);
	return rc;
}

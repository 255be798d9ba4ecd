/* Unit tests for hg_threads_blocker: what the blamed thread waits on, in a
 * line that is the same for the same cause whatever the dump's tids,
 * addresses, line numbers and pool-thread numbers.  Each kind from ART
 * dumps written here (a lock held by pool threads of varying names, the
 * chain's last holder, a holder with no app frame or not in the dump, a
 * deadlock with and through the main thread, binder calls, Java waits,
 * native waits the stack makes plain and those it does not, iOS-like
 * stacks built by hand), and every dump of testdata/anr/ and some of
 * testdata/ (external fixtures, an iOS hang, the labelled corpus) with the
 * line each gives.  argv[1] is the testdata/ folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/hangar.h"
#include "hangar/input.h"
#include "hangar/report.h"
#include "hangar/threads.h"

static const char *testdata = "testdata";

/* ---- reading ---- */

struct got {
	hg_report *rep;
	hg_blocker b;
	char kind[32], line[512], holder[128], frame[256]; /* "" for NULL */
};

static int keep_first(void *user, hg_report *rep)
{
	struct got *g = user;
	if (!g->rep)
		g->rep = rep;
	else
		hg_report_destroy(rep);
	return 0;
}

static void copy(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s ? s : "");
}

/* The blocker of the first report of text[0..len) read as `format`. */
static void blocker_of_as(struct got *g, const char *name, const char *text, size_t len,
			  enum hg_input_format format)
{
	memset(g, 0, sizeof *g);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	assert_true(hg_reports_read_as(&ctx, name, text, len, format, keep_first, g) >= 0);
	assert_non_null(g->rep);
	if (g->rep->error)
		fail_msg("%s: %s", name, g->rep->error);
	assert_int_equal(hg_threads_blocker(&g->rep->threads, g->rep->arena, &g->b), 0);
	copy(g->kind, sizeof g->kind, g->b.kind);
	copy(g->line, sizeof g->line, g->b.line);
	copy(g->holder, sizeof g->holder, g->b.holder);
	copy(g->frame, sizeof g->frame, g->b.frame);
	hg_report_destroy(g->rep);
	g->rep = NULL;
}

/* ---- dumps written here ---- */

static const char *const LOOPER =
	"  at android.os.Handler.handleCallback(Handler.java:958)\n"
	"  at android.os.Handler.dispatchMessage(Handler.java:99)\n"
	"  at android.os.Looper.loopOnce(Looper.java:205)\n"
	"  at android.os.Looper.loop(Looper.java:294)\n"
	"  at android.app.ActivityThread.main(ActivityThread.java:8177)\n";

/* An ART dump of com.example.shop: "main" in state with frames main_body
 * (the looper added below them), then the other threads' text. */
static char *dump(const char *state, const char *main_body, const char *others)
{
	const char *fmt = "----- pid 8123 at 2026-11-03 09:36:53.301846220+0000 -----\n"
			  "Cmd line: com.example.shop\n"
			  "ABI: 'arm64'\n"
			  "DALVIK THREADS (9):\n"
			  "\"main\" prio=5 tid=1 %s\n"
			  "  | group=\"main\" sCount=1 ucsCount=0 flags=1 obj=0x72a3c7d8 self=0x7c1e3a401c00\n"
			  "  | sysTid=8123 nice=-10 cgrp=top-app sched=0/0 handle=0x7c1f6b7a9f28\n"
			  "%s%s\n%s----- end 8123 -----\n";
	size_t n = strlen(fmt) + strlen(state) + strlen(main_body) + strlen(LOOPER) + strlen(others) + 1;
	char *s = malloc(n);
	assert_non_null(s);
	snprintf(s, n, fmt, state, main_body, LOOPER, others);
	return s;
}

static void blocker_of(struct got *g, const char *state, const char *main_body, const char *others)
{
	char *text = dump(state, main_body, others);
	blocker_of_as(g, "dump.txt", text, strlen(text), HG_FORMAT_ANR_TRACES);
	free(text);
}

/* A thread header: name, tid, state. */
#define THREAD(name, tid, state) "\"" name "\" prio=5 tid=" #tid " " state "\n"

static void expect(const struct got *g, const char *kind, const char *line)
{
	if (strcmp(g->kind, kind) != 0 || strcmp(g->line, line) != 0)
		fail_msg("got %s \"%s\", want %s \"%s\"", g->kind, g->line, kind, line);
}

/* ---- locks ---- */

static char *cart_holder(char *buf, size_t cap, const char *name, int tid, const char *addr,
			 int line)
{
	snprintf(buf, cap,
		 "\"%s\" prio=5 tid=%d Runnable\n"
		 "  at java.io.FileOutputStream.write(FileOutputStream.java:%d)\n"
		 "  at com.example.shop.db.CartDao.save(CartDao.kt:%d)\n"
		 "  - locked <%s> (a com.example.shop.db.CartDao)\n"
		 "  at com.example.shop.sync.CartSync$1.run(CartSync.kt:40)\n"
		 "  at java.lang.Thread.run(Thread.java:1012)\n\n",
		 name, tid, line + 3, line, addr);
	return buf;
}

static char *main_waits(char *buf, size_t cap, const char *addr, int held_by)
{
	snprintf(buf, cap,
		 "  at com.example.shop.cart.CartRepository.total(CartRepository.kt:88)\n"
		 "  - waiting to lock <%s> (a com.example.shop.db.CartDao) held by thread %d\n"
		 "  at com.example.shop.cart.CartActivity.onResume(CartActivity.kt:40)\n",
		 addr, held_by);
	return buf;
}

/* One pool, any thread of it, any tid, address or line: one line. */
static void test_lock_pool_threads(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int tid;
		const char *addr;
		const char *want_holder;
	} cases[] = {
		{"cart-sync-1", 14, "0x0b7a51e2", "cart-sync-N"},
		{"cart-sync-12", 27, "0x04c3d9f8", "cart-sync-N"},
		{"pool-2-thread-5", 31, "0x1d2e3f40", "pool-N-thread-N"},
		{"Thread-4", 8, "0x00aa00bb", "Thread-N"},
		{"worker@5d3f2a1c", 9, "0x0badcafe", "worker@N"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char m[512], h[512], want[128];
		struct got g;
		blocker_of(&g, "Blocked", main_waits(m, sizeof m, cases[i].addr, cases[i].tid),
			   cart_holder(h, sizeof h, cases[i].name, cases[i].tid, cases[i].addr,
				       60 + (int)i));
		snprintf(want, sizeof want, "lock held by %s in CartDao.save", cases[i].want_holder);
		expect(&g, "lock", want);
		assert_string_equal(g.holder, cases[i].want_holder);
		assert_string_equal(g.frame, "CartDao.save");
	}
}

/* main waits for A, which waits for B: B and its frame are the cause. */
static void test_lock_chain_last_holder(void **state)
{
	(void)state;
	char m[512];
	struct got g;
	blocker_of(&g, "Blocked", main_waits(m, sizeof m, "0x11111111", 21),
		   THREAD("ui-cache-3", 21, "Blocked")
		   "  at com.example.shop.cache.UiCache.put(UiCache.kt:12)\n"
		   "  - waiting to lock <0x22222222> (a com.example.shop.db.Db) held by thread 22\n"
		   "  - locked <0x11111111> (a com.example.shop.db.CartDao)\n"
		   "  at java.lang.Thread.run(Thread.java:1012)\n\n"
		   THREAD("db-writer-7", 22, "Native")
		   "  at com.example.shop.db.Db$Writer$2.flush(Db.kt:300)\n"
		   "  - locked <0x22222222> (a com.example.shop.db.Db)\n"
		   "  at java.lang.Thread.run(Thread.java:1012)\n\n");
	expect(&g, "lock", "lock held by db-writer-N in Db$Writer$N.flush");
	assert_string_equal(g.holder, "db-writer-N");
}

/* A holder in platform code only: the lock's class says which lock. */
static void test_lock_holder_without_app_frame(void **state)
{
	(void)state;
	char m[512];
	struct got g;
	blocker_of(&g, "Blocked", main_waits(m, sizeof m, "0x11111111", 9),
		   THREAD("Thread-9", 9, "Sleeping")
		   "  at java.lang.Thread.sleep(Native method)\n"
		   "  at java.lang.Thread.sleep(Thread.java:450)\n"
		   "  - locked <0x11111111> (a com.example.shop.db.CartDao$1)\n"
		   "  at java.lang.Thread.run(Thread.java:1012)\n\n");
	expect(&g, "lock", "lock held by Thread-N on com.example.shop.db.CartDao");
	assert_string_equal(g.frame, "");
}

/* The dump names a holder it does not hold (or no holder at all). */
static void test_lock_unknown_holder(void **state)
{
	(void)state;
	char m[512];
	struct got g;
	blocker_of(&g, "Blocked", main_waits(m, sizeof m, "0x11111111", 99), "");
	expect(&g, "lock", "lock held by an unknown thread on com.example.shop.db.CartDao");
	assert_string_equal(g.holder, "");
	assert_string_equal(g.frame, "");
}

/* ---- deadlocks ---- */

static void test_deadlock_with_main(void **state)
{
	(void)state;
	struct got g;
	blocker_of(&g, "Blocked",
		   "  at com.example.shop.cart.CartRepository.snapshot(CartRepository.kt:88)\n"
		   "  - waiting to lock <0x0b7a51e2> (a com.example.shop.db.OrderDao) held by thread 22\n"
		   "  at com.example.shop.cart.CartRepository.refresh(CartRepository.kt:61)\n"
		   "  - locked <0x04c3d9f8> (a com.example.shop.cart.CartRepository)\n",
		   THREAD("db-writer-2", 22, "Blocked")
		   "  at com.example.shop.db.OrderDao.write(OrderDao.kt:10)\n"
		   "  - waiting to lock <0x04c3d9f8> (a com.example.shop.cart.CartRepository) held by thread 1\n"
		   "  - locked <0x0b7a51e2> (a com.example.shop.db.OrderDao)\n"
		   "  at java.lang.Thread.run(Thread.java:1012)\n\n");
	expect(&g, "deadlock", "deadlock: main -> db-writer-N -> main");
}

/* main waits into a cycle of two other threads. */
static void test_deadlock_beyond_main(void **state)
{
	(void)state;
	char m[512];
	struct got g;
	blocker_of(&g, "Blocked", main_waits(m, sizeof m, "0x11111111", 21),
		   THREAD("io-1", 21, "Blocked")
		   "  at com.example.shop.io.A.run(A.kt:1)\n"
		   "  - waiting to lock <0x22222222> (a com.example.shop.io.B) held by thread 22\n"
		   "  - locked <0x11111111> (a com.example.shop.db.CartDao)\n\n"
		   THREAD("io-2", 22, "Blocked")
		   "  at com.example.shop.io.B.run(B.kt:1)\n"
		   "  - waiting to lock <0x11111111> (a com.example.shop.db.CartDao) held by thread 21\n"
		   "  - locked <0x22222222> (a com.example.shop.io.B)\n\n");
	expect(&g, "deadlock", "deadlock: main -> io-N -> io-N -> io-N");
}

/* ---- binder ---- */

static void test_binder(void **state)
{
	(void)state;
	struct got g;
	blocker_of(&g, "Native",
		   "  native: #00 pc 00000000000a53ed  /apex/com.android.runtime/lib64/bionic/libc.so (__ioctl+8)\n"
		   "  native: #01 pc 00000000000735f3  /system/lib64/libbinder.so (android::IPCThreadState::transact+224)\n"
		   "  at android.os.BinderProxy.transactNative(BinderProxy.java:736)\n"
		   "  at android.os.BinderProxy.transact(BinderProxy.java:109)\n"
		   "  at android.app.IActivityManager$Stub$Proxy.getRunningAppProcesses(IActivityManager.java:255)\n"
		   "  at android.app.ActivityManager.getRunningAppProcesses(ActivityManager.java:384)\n"
		   "  at com.example.shop.util.ProcessUtil.isMainProcess(ProcessUtil.java:81)\n",
		   "");
	expect(&g, "binder", "binder call IActivityManager.getRunningAppProcesses");
	assert_string_equal(g.frame, "IActivityManager.getRunningAppProcesses");
	/* no proxy frame: where the app made the call */
	blocker_of(&g, "Native",
		   "  native: #00 pc 00000000000a53ed  /apex/com.android.runtime/lib64/bionic/libc.so (__ioctl+8)\n"
		   "  native: #01 pc 00000000000735f3  /system/lib64/libbinder.so (android::IPCThreadState::talkWithDriver(bool)+224)\n"
		   "  native: #02 pc 00000000000735f3  /system/lib64/libbinder.so (android::IPCThreadState::waitForResponse(android::Parcel*, int*)+60)\n"
		   "  at android.os.BinderProxy.transactNative(BinderProxy.java:736)\n"
		   "  at com.example.shop.ipc.Remote$1.call(Remote.java:81)\n",
		   "");
	expect(&g, "binder", "binder call from Remote$N.call");
}

/* ---- Java waits ---- */

static void test_java_waits(void **state)
{
	(void)state;
	struct got g;
	blocker_of(&g, "Waiting",
		   "  at jdk.internal.misc.Unsafe.park(Native method)\n"
		   "  - parking to wait for <0x0a1b2c3d> (a java.util.concurrent.CountDownLatch$Sync)\n"
		   "  at java.util.concurrent.locks.LockSupport.park(LockSupport.java:211)\n"
		   "  at java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire(AbstractQueuedSynchronizer.java:715)\n"
		   "  at java.util.concurrent.locks.AbstractQueuedSynchronizer.acquireSharedInterruptibly(AbstractQueuedSynchronizer.java:1047)\n"
		   "  at java.util.concurrent.CountDownLatch.await(CountDownLatch.java:230)\n"
		   "  at com.example.shop.boot.Loader.await(Loader.kt:44)\n",
		   "");
	expect(&g, "wait", "parked on CountDownLatch in Loader.await");
	assert_string_equal(g.frame, "Loader.await");
	blocker_of(&g, "Waiting",
		   "  at sun.misc.Unsafe.park(Native method)\n"
		   "  at java.util.concurrent.locks.LockSupport.park(LockSupport.java:190)\n"
		   "  at java.util.concurrent.FutureTask.awaitDone(FutureTask.java:450)\n"
		   "  at java.util.concurrent.FutureTask.get(FutureTask.java:192)\n"
		   "  at com.example.shop.feed.FeedRepo.load$lambda$3(FeedRepo.kt:20)\n",
		   "");
	expect(&g, "wait", "parked on FutureTask in FeedRepo.load$lambda$N");
	blocker_of(&g, "Waiting",
		   "  at java.lang.Object.wait(Native method)\n"
		   "  - waiting on <0x0c0ffee0> (a com.example.shop.sync.Outbox)\n"
		   "  at java.lang.Object.wait(Object.java:442)\n"
		   "  at com.example.shop.sync.Outbox.drain(Outbox.kt:17)\n"
		   "  - locked <0x0c0ffee0> (a com.example.shop.sync.Outbox)\n",
		   "");
	expect(&g, "wait", "waiting on Outbox in Outbox.drain");
	blocker_of(&g, "Sleeping",
		   "  at java.lang.Thread.sleep(Native method)\n"
		   "  - sleeping on <0x068d230d> (a java.lang.Object)\n"
		   "  at java.lang.Thread.sleep(Thread.java:451)\n"
		   "  at com.example.shop.push.PushReceiver$$ExternalSyntheticLambda2.onReceive(unavailable:0)\n",
		   "");
	expect(&g, "wait", "sleeping in PushReceiver$$Lambda.onReceive");
	/* the platform's own wait, no app frame: the class it waits in */
	blocker_of(&g, "Waiting",
		   "  at java.lang.Object.wait(Native method)\n"
		   "  at android.app.SharedPreferencesImpl.awaitLoadedLocked(SharedPreferencesImpl.java:292)\n"
		   "  at android.app.SharedPreferencesImpl.getString(SharedPreferencesImpl.java:305)\n",
		   "");
	expect(&g, "wait", "waiting on SharedPreferencesImpl");
	assert_string_equal(g.frame, "");
}

/* ---- native waits, and no blocker ---- */

static void test_native_waits(void **state)
{
	(void)state;
	struct got g;
	blocker_of(&g, "Native",
		   "  native: #00 pc 00000000000a33b8  /apex/com.android.runtime/lib64/bionic/libc.so (__epoll_pwait+8)\n"
		   "  native: #01 pc 0000000000010dfc  /data/app/lib/arm64/libnet.so (net::Poller::wait(int)+156)\n"
		   "  at com.example.shop.net.NativePoller.poll(Native method)\n"
		   "  at com.example.shop.net.Client.fetch(Client.kt:30)\n",
		   "");
	expect(&g, "native", "native wait (epoll) in NativePoller.poll");
	/* no Java frame: the native function that made the call */
	blocker_of(&g, "Native",
		   "  native: #00 pc 00000000000a33b8  /apex/com.android.runtime/lib64/bionic/libc.so (syscall+28)\n"
		   "  native: #01 pc 0000000000010dfc  /apex/com.android.runtime/lib64/bionic/libc.so (__futex_wait_ex(void volatile*, bool, int, bool, timespec const*)+144)\n"
		   "  native: #02 pc 0000000000010dfc  /data/app/lib/arm64/libshop.so (shop::Store::lock()+20)\n",
		   "");
	expect(&g, "native", "native wait (futex) in shop::Store::lock");
	assert_string_equal(g.frame, "shop::Store::lock");
	/* blocking file I/O seen from Java */
	blocker_of(&g, "Runnable",
		   "  at libcore.io.Linux.read(Native method)\n"
		   "  at libcore.io.ForwardingOs.read(ForwardingOs.java:568)\n"
		   "  at java.io.FileInputStream.read(FileInputStream.java:313)\n"
		   "  at com.example.shop.config.ConfigStore.load(ConfigStore.kt:12)\n",
		   "");
	expect(&g, "native", "native wait (read) in ConfigStore.load");
	/* the runtime suspending the thread (for the dump itself): not a cause */
	blocker_of(&g, "Native",
		   "  native: #00 pc 0000000000000b97  [vdso] (__kernel_vsyscall+7)\n"
		   "  native: #01 pc 000000000005ad68  /apex/com.android.runtime/lib/bionic/libc.so (syscall+40)\n"
		   "  native: #02 pc 00000000001d82ec  /apex/com.android.art/lib/libart.so (art::ConditionVariable::WaitHoldingLocks(art::Thread*)+108)\n"
		   "  native: #03 pc 00000000007894db  /apex/com.android.art/lib/libart.so (art::GoToRunnable(art::Thread*)+507)\n"
		   "  at java.lang.Thread.yield(Native method)\n"
		   "  at com.example.shop.MainActivity.spin(MainActivity.java:157)\n",
		   "");
	expect(&g, "", "");
	/* an idle looper: the dump missed the cause */
	blocker_of(&g, "Native",
		   "  native: #00 pc 00000000000a33b8  /apex/com.android.runtime/lib64/bionic/libc.so (__epoll_pwait+8)\n"
		   "  native: #01 pc 0000000000010dfc  /system/lib64/libutils.so (android::Looper::pollOnce(int, int*, int*, void**)+156)\n"
		   "  at android.os.MessageQueue.nativePollOnce(Native method)\n"
		   "  at android.os.MessageQueue.next(MessageQueue.java:335)\n",
		   "");
	expect(&g, "", "");
	/* the app's own work */
	blocker_of(&g, "Runnable",
		   "  at com.example.shop.feed.FeedParser.parse(FeedParser.kt:90)\n"
		   "  at com.example.shop.feed.FeedActivity.onCreate(FeedActivity.kt:30)\n",
		   "");
	expect(&g, "", "");
	assert_null(g.b.line);
	/* a native call that is not a wait */
	blocker_of(&g, "Native",
		   "  native: #00 pc 00000000000a33b8  /data/app/lib/arm64/libshop.so (shop::hash()+8)\n"
		   "  at com.example.shop.NativeHash.run(Native method)\n",
		   "");
	expect(&g, "", "");
}

/* ---- threads built by hand (iOS-like native stacks) ---- */

static void native_frame(hg_thread *t, hg_arena *a, const char *name, const char *image)
{
	hg_frame *f = hg_thread_add_frame(t, a);
	assert_non_null(f);
	f->kind = HG_FRAME_NATIVE;
	f->method = name;
	f->image = image;
}

/* The call the app made into the wait, past the C library; an app's own
 * image (its bundle) names where; an Objective-C '+' is not an offset. */
static void test_native_by_hand(void **state)
{
	(void)state;
	hg_arena *a = hg_arena_create();
	assert_non_null(a);
	hg_threads ts = {.blamed = -1};
	hg_strlist warnings = {0};
	hg_thread *t = hg_threads_add(&ts, a);
	assert_non_null(t);
	t->name = "main";
	native_frame(t, a, "__semwait_signal", NULL);
	native_frame(t, a, "nanosleep", NULL);
	native_frame(t, a, "+[NSThread sleepForTimeInterval:]", NULL);
	native_frame(t, a, "static Model.block()", NULL);
	ts.blamed = 0;
	assert_int_equal(hg_threads_analyse(&ts, a, &warnings), 0);
	hg_blocker b;
	assert_int_equal(hg_threads_blocker(&ts, a, &b), 0);
	assert_string_equal(b.kind, "native");
	assert_string_equal(b.line, "native wait (sleep) in +[NSThread sleepForTimeInterval:]");
	/* the same, the app's frame in its bundle: that frame */
	hg_image img = {.kind = HG_IMAGE_MACHO, .name = "Shop",
			.path = "/private/var/containers/Bundle/Application/X/Shop.app/Shop"};
	uint32_t ref = 0;
	assert_int_equal(hg_threads_add_image(&ts, a, &img, &ref), 0);
	ts.items[0].frames[3].image = "Shop";
	ts.items[0].frames[3].image_ref = ref;
	assert_int_equal(hg_threads_blocker(&ts, a, &b), 0);
	assert_string_equal(b.line, "native wait (sleep) in static Model.block");
	assert_string_equal(b.frame, "static Model.block");
	/* a run loop waiting for work: idle, no blocker */
	hg_thread *idle = &ts.items[0];
	idle->n_frames = 0;
	native_frame(idle, a, "mach_msg2_trap", "libsystem_kernel.dylib");
	native_frame(idle, a, "mach_msg2_internal", "libsystem_kernel.dylib");
	native_frame(idle, a, "__CFRunLoopServiceMachPort", "CoreFoundation");
	assert_int_equal(hg_threads_blocker(&ts, a, &b), 0);
	assert_null(b.kind);
	/* "+offset" goes, a C++ function's parameters too */
	idle->n_frames = 0;
	native_frame(idle, a, "__futex_wait_ex", "libc.so");
	native_frame(idle, a, "pthread_mutex_lock", "libc.so");
	native_frame(idle, a, "Store::lock(int)", "/vendor/lib64/libstore.so");
	assert_int_equal(hg_threads_blocker(&ts, a, &b), 0);
	assert_string_equal(b.line, "native wait (mutex) in Store::lock");
	idle->frames[2].method = "store_lock+124";
	assert_int_equal(hg_threads_blocker(&ts, a, &b), 0);
	assert_string_equal(b.line, "native wait (mutex) in store_lock");
	hg_arena_destroy(a);
}

/* No blamed thread: no blocker, and nothing read. */
static void test_no_blamed_thread(void **state)
{
	(void)state;
	hg_threads ts = {.blamed = -1};
	hg_blocker b = {.kind = "x"};
	assert_int_equal(hg_threads_blocker(&ts, NULL, &b), 0);
	assert_null(b.kind);
	assert_null(b.line);
	ts.blamed = 3; /* out of range */
	assert_int_equal(hg_threads_blocker(&ts, NULL, &b), 0);
	assert_null(b.kind);
}

/* ---- the dumps of testdata/ ---- */

/* What every ANR dump of testdata/ gives (looked at one by one). */
static const struct {
	const char *path, *kind, *line;
} files[] = {
	{"anr/android11-x86-emu-appexit-main-native-with-injected-notes.txt", "", ""},
	{"anr/android12-emu-appexit-broadcast-receiver-sleeping.txt", "wait",
	 "sleeping in AnrBroadcastReceiver.performLongOperation"},
	{"anr/android13-emu-appexit-main-sleeping.txt", "wait",
	 "sleeping in BaseCrashyActivity.onCreate$lambda$N"},
	{"anr/android13-emu-main-blocked-held-by-thread.txt", "lock",
	 "lock held by Thread-N in MainActivity$N.run"},
	{"anr/android13-emu-native-only-waiting-channels.txt", "", ""},
	{"anr/android14-emu-appexit-input-dispatching-main-runnable-ondraw.txt", "", ""},
	{"anr/android17-preview-emu-appexit-broadcast-r8-obfuscated.txt", "wait",
	 "sleeping in AnrBroadcastReceiver.onReceive"},
	{"anr/appexit-subject-input-dispatching-waiting-channels-only.txt", "", ""},
	{"anr/handmade-deadlock-main-and-worker.txt", "deadlock", "deadlock: main -> DbWorker -> main"},
	{"anr/handmade-idle-main-nativepollonce-service.txt", "", ""},
	{"anr/measure-r8-anr-trimmed-obfuscated.txt", "lock", "lock held by APP: Locker in c.run"},
	{"anr/measure-r8-app-exit-input-dispatching-main-blocked.txt", "lock",
	 "lock held by APP: Locker in c.run"},
	{"anr/xcrash-android10-pixel-arm64-anr-tombstone.txt", "wait",
	 "sleeping in MainActivity.testAnrInput_onClick"},
	{"anr/xcrash-android10-pixel-armv7-anr-tombstone.txt", "wait",
	 "sleeping in MainActivity.testAnrInput_onClick"},
	{"external/sentry-java/anrv2_integration_trace.txt", "lock",
	 "lock held by an unknown thread on java.lang.Object"},
	{"external/kscrash/MainThreadDeadlock.json", "native",
	 "native wait (mutex) in __19-[Crasher deadlock]_block_invoke"},
	{"seeds/matrix-ios/article-report.json", "native",
	 "native wait (sleep) in +[NSThread sleepForTimeInterval:]"},
	{"labelled/reports/anr/021.txt", "binder", "binder call IActivityManager.getRunningAppProcesses"},
	{"labelled/reports/anr/016.txt", "lock", "lock held by disk-io in DiskCache.trim"},
};

static void test_testdata_dumps(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", testdata, files[i].path);
		hg_ctx ctx;
		hg_ctx_init(&ctx);
		char *data = NULL;
		size_t len = 0;
		if (hg_input_read(&ctx, path, &data, &len) != 0)
			fail_msg("cannot read %s", path);
		struct got g;
		blocker_of_as(&g, path, data, len, HG_FORMAT_AUTO);
		free(data);
		if (strcmp(g.kind, files[i].kind) != 0 || strcmp(g.line, files[i].line) != 0)
			fail_msg("%s: got %s \"%s\", want %s \"%s\"", files[i].path, g.kind, g.line,
				 files[i].kind, files[i].line);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_pool_threads),
		cmocka_unit_test(test_lock_chain_last_holder),
		cmocka_unit_test(test_lock_holder_without_app_frame),
		cmocka_unit_test(test_lock_unknown_holder),
		cmocka_unit_test(test_deadlock_with_main),
		cmocka_unit_test(test_deadlock_beyond_main),
		cmocka_unit_test(test_binder),
		cmocka_unit_test(test_java_waits),
		cmocka_unit_test(test_native_waits),
		cmocka_unit_test(test_native_by_hand),
		cmocka_unit_test(test_no_blamed_thread),
		cmocka_unit_test(test_testdata_dumps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

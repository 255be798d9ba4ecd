/* Thread stacks: the threads of a dump (Android ANR traces, BlockCanary,
 * Java stack dumps, iOS hang reports), their frames and locks, the thread
 * to blame and what blocks it.  Everything lives in the report's arena. */
#ifndef HANGAR_THREADS_H
#define HANGAR_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

enum hg_frame_kind {
	HG_FRAME_JAVA,    /* class.method(file:line) */
	HG_FRAME_NATIVE,  /* pc / image / symbol */
};

typedef struct hg_frame {
	enum hg_frame_kind kind;
	int candidate;          /* which candidate of an ambiguous retrace (1, 2, ...; a
	                           candidate may be several inlined frames); 0 when not ambiguous */
	const char *cls;        /* Java: dotted class name, e.g. "a.b.C$D"; else NULL */
	const char *method;     /* Java method, or native symbol without "+offset" (the
	                           function symbols named, when symbolicated; its readable name
	                           when the symbol is mangled, see mangled); may be NULL */
	const char *file;       /* Java source as written ("C.java", "Native Method",
	                           "Unknown Source"); native: the source file symbols
	                           named; NULL when absent */
	long line;              /* Java line, or the native line symbols named; -1 when absent */
	uint64_t pc;            /* native: program counter, read exactly (when has_pc) */
	const char *image;      /* native: library path or binary image name; may be NULL */
	uint64_t offset;        /* native: pc's offset in image or past the symbol (when has_offset) */
	const char *symbol;     /* native: symbol as written, e.g. "art::Foo(int)+12"; may be NULL */
	const char *mangled;    /* native: the mangled name method was demangled from (once a
	                           report is read, hg_demangle), e.g. "_ZN3art3FooEi"; NULL when
	                           the name was not mangled or not understood */
	long repeat;            /* samples that saw this frame (iOS repeat_count); 1 */
	const char *text;       /* the frame as written, trimmed */
	/* The flags sit together, as bits, beside the image index so that a
	 * frame is 104 bytes, not 120: a million-frame report holds a million
	 * of them. */
	bool has_pc : 1;
	bool has_offset : 1;
	bool retraced : 1;      /* names come from a ProGuard/R8 mapping */
	bool alternative : 1;   /* one of several candidates of an ambiguous retrace */
	bool symbolicated : 1;  /* native: method/file/line come from symbol files (symbols.h) */
	bool inlined : 1;       /* native: a function inlined into the next frame, at the same pc */
	uint32_t image_ref;     /* native: 1 + the index in hg_threads.images of the image
	                           that holds pc (placed by address); 0 when not placed */
} hg_frame;

enum hg_image_kind {
	HG_IMAGE_MACHO,         /* iOS: id is the LC_UUID, as "DFBF7BE2-4616-3213-8910-B341DA781E25" */
	HG_IMAGE_ELF,           /* Android: id is the GNU Build ID, lowercase hex */
};

/* One binary image of the process a report describes, for placing frames
 * and for symbolicating them (by hand or with symbols.h).  Only images
 * some frame lies in are kept.  Strings live in the report's arena. */
typedef struct hg_image {
	enum hg_image_kind kind;
	const char *name;       /* basename: "UIKitCore", "libfoo.so" */
	const char *path;       /* as the report wrote it (may be the same as name) */
	const char *id;         /* UUID or Build ID as above; NULL when the report gives none */
	uint64_t load_addr;     /* iOS: where it was loaded (image_addr); Android: 0, since
	                           the pc of "#00 pc ..." is already relative to the ELF */
	uint64_t vmaddr;        /* iOS: its __TEXT vmaddr as the report says (image_vmaddr); 0 */
	uint64_t size;          /* bytes mapped; 0 when unknown */
	bool has_load_addr;     /* false for Android: frames' pcs are file addresses */
} hg_image;

enum hg_thread_flag {
	HG_THREAD_MAIN = 1u << 0,        /* the app's main (UI) thread */
	HG_THREAD_BLAMED = 1u << 1,      /* the thread the report is about */
	HG_THREAD_BLOCKS_MAIN = 1u << 2, /* holds a lock the blamed thread waits for, directly or not */
	HG_THREAD_DEADLOCKED = 1u << 3,  /* in a cycle of lock waits */
	HG_THREAD_IDLE = 1u << 4,        /* main thread idle in its looper: the dump missed the cause */
	HG_THREAD_CRASHED = 1u << 5,     /* the thread that wrote the report (not to blame) */
	HG_THREAD_CAUSE = 1u << 6,       /* no thread: the stack trace of an exception's cause
	                                    ("Caused by:"), see hg_report.exceptions */
	HG_THREAD_SAMPLE = 1u << 7,      /* no thread: the frames of a stack sample, see
	                                    hg_report.samples */
};

typedef struct hg_lock {
	const char *addr;       /* e.g. "0x0d3a2f0a" */
	const char *cls;        /* e.g. "java.lang.Object"; may be NULL */
} hg_lock;

/* What a lock line of a dump says of its lock, in ART's words. */
enum hg_lock_kind {
	HG_LOCK_HELD,            /* "- locked <addr>": held by the frame above */
	HG_LOCK_WAITING_TO_LOCK, /* "- waiting to lock <addr> ... held by thread N" */
	HG_LOCK_WAITING_ON,      /* "- waiting on <addr>": Object.wait, the monitor let go */
	HG_LOCK_SLEEPING_ON,     /* "- sleeping on <addr>": Thread.sleep */
	HG_LOCK_PARKING,         /* "- parking to wait for <addr>": LockSupport.park */
	HG_LOCK_RELEASED,        /* "- locked <addr>" that the wait or sleep above let go of */
};

/* A lock line where the dump wrote it: after frame `frame` (an index into
 * the thread's frames; HG_LOCK_NO_FRAME when it came before any frame).
 * Kept beside the frames, not in them: a frame stays 96 bytes.  The held and
 * waiting fields of hg_thread say the same for the lock graph. */
#define HG_LOCK_NO_FRAME ((size_t)-1)
typedef struct hg_frame_lock {
	size_t frame;
	enum hg_lock_kind kind;
	hg_lock lock;
	long held_by;           /* HG_LOCK_WAITING_TO_LOCK: the holder's tid the dump names; -1 */
} hg_frame_lock;

typedef struct hg_thread {
	const char *name;
	long tid;               /* ART's tid=N; -1 when absent */
	long sys_tid;           /* kernel tid (sysTid=N); -1 when absent */
	const char *state;      /* as written: "Blocked", "Sleeping", "RUNNABLE", ... */
	int priority;           /* -1 when absent */
	bool daemon;
	unsigned flags;         /* enum hg_thread_flag */
	hg_frame *frames;       /* innermost first */
	size_t n_frames, cap_frames;
	hg_lock *held;
	size_t n_held, cap_held;
	hg_lock waiting;        /* addr NULL when not waiting for a lock */
	long waiting_held_by;   /* tid of the holder when the dump names it; -1 */
	hg_frame_lock *locks;   /* the lock lines in the order written, each under its frame */
	size_t n_locks, cap_locks;
} hg_thread;

/* Threads in a cycle of lock waits: thread[i] waits for lock[i], which
 * thread[i+1] (cyclically) holds. */
typedef struct hg_lock_cycle {
	size_t *threads;
	const hg_lock **locks;
	size_t n;
} hg_lock_cycle;

typedef struct hg_threads {
	hg_thread *items;
	size_t n, cap;
	long blamed;            /* index of the thread to blame; -1 */
	size_t *chain;          /* blamed waits for chain[0], which waits for chain[1], ... */
	size_t n_chain;
	hg_lock_cycle *cycles;
	size_t n_cycles;
	hg_image *images;       /* the images frames lie in (hg_frame.image_ref) */
	size_t n_images, cap_images;
} hg_threads;

/* Appends a thread (tid, sys_tid, priority -1; no frames); NULL on ENOMEM.
 * Pointers to earlier threads may move: keep indexes, not pointers. */
hg_thread *hg_threads_add(hg_threads *ts, hg_arena *arena);
/* Appends a frame (line -1, repeat 1) to t; NULL on ENOMEM. */
hg_frame *hg_thread_add_frame(hg_thread *t, hg_arena *arena);
/* Makes room for n more frames in t, so that the next n hg_thread_add_frame
 * calls do not grow (and copy) its array: a reader that knows how many
 * frames follow keeps one array instead of a trail of doubled ones in the
 * arena.  0 or HG_ENOMEM (also when n is absurdly large). */
int hg_thread_reserve_frames(hg_thread *t, hg_arena *arena, size_t n);
/* Appends a copy of *img (its strings borrowed: they must live in arena) to
 * ts->images and sets *ref to the hg_frame.image_ref that names it (1 +
 * its index).  0, or HG_ENOMEM (also past 2^32 - 2 images). */
int hg_threads_add_image(hg_threads *ts, hg_arena *arena, const hg_image *img, uint32_t *ref);
/* The image f lies in (borrowed from ts: valid until the next
 * hg_threads_add_image), or NULL when f is not placed (or ref is stale). */
const hg_image *hg_frame_image(const hg_threads *ts, const hg_frame *f);
/* Records a lock t holds; 0 or HG_ENOMEM. */
int hg_thread_add_held(hg_thread *t, hg_arena *arena, const char *addr, const char *cls);

/* Records a lock line after t's last frame so far (HG_LOCK_NO_FRAME when it
 * has none); addr and cls are borrowed (arena strings).  0 or HG_ENOMEM. */
int hg_thread_add_frame_lock(hg_thread *t, hg_arena *arena, enum hg_lock_kind kind,
			     const char *addr, const char *cls, long held_by);
/* After t's frames were replaced (a retrace expanding inlined frames):
 * end[i] is how many new frames old frames 0..i became, for each of the n_old
 * old frames; each lock line moves under the last new frame of its old one. */
void hg_thread_remap_locks(hg_thread *t, const size_t *end, size_t n_old);
/* "held", "waiting to lock", "waiting on", "sleeping on", "parking", "released". */
const char *hg_lock_kind_name(enum hg_lock_kind kind);

/* Whose a Java class ("a.b.C$D") is by its name (java_owner.c): the
 * platform prefix it lies under ("android.", "java.", ...) or the common
 * library's ("androidx.", "kotlin.", "com.google."), NULL when none (cls may
 * be NULL); and whether it looks renamed by R8/ProGuard (its outer simple
 * name one to three letters or digits, not an acronym of capitals). */
const char *hg_java_platform_prefix(const char *cls);
const char *hg_java_library_prefix(const char *cls);
bool hg_java_class_obfuscated(const char *cls);

/* Parses one Java frame: "a.b.C.m(C.java:12)", with or without a leading
 * "at ", tolerating "(Native Method)", "(Unknown Source)", "(:12)",
 * "(r8-map-id-...:8)" and a missing "(...)" part.  Strings go to arena.
 * Returns 0, or HG_EPARSE when s is not a Java frame. */
int hg_frame_parse_java(const char *s, size_t len, hg_arena *arena, hg_frame *out);

/* Finds what the blamed thread waits for: follows "held by" links into
 * ts->chain, finds cycles of lock waits into ts->cycles, tags threads
 * (BLOCKS_MAIN, DEADLOCKED, IDLE) and adds warnings (an idle main thread
 * means the dump missed the cause).  ts->blamed must be set first. */
int hg_threads_analyse(hg_threads *ts, hg_arena *arena, hg_strlist *warnings);

/* What the blamed thread waits on, in one line that reads the same for the
 * same cause in any dump: thread names with each run of digits (and a word
 * that is an address or hash) as N, frames as Class.method without package
 * or line ("$1" as "$N"), never an address or a tid.  Kinds, the first that
 * holds:
 *   "deadlock"  "deadlock: main -> db-writer-N -> main" (its cycle from the
 *               blamed thread, or its chain into a cycle it is not in)
 *   "lock"      "lock held by cart-sync-N in CartDao.save": the chain's last
 *               holder and its top app frame; "... on com.example.CartDao"
 *               (the lock's class) when it runs no app code; "lock held by
 *               an unknown thread" when the dump does not name the holder
 *   "binder"    "binder call IActivityManager.getRunningAppProcesses" (the
 *               $Stub$Proxy frame), else "binder call from <top app frame>"
 *   "wait"      "parked on CountDownLatch in Loader.await", "waiting on
 *               Object in Sync.run", "sleeping in Receiver.onReceive"
 *   "native"    "native wait (futex) in Sync.run" (epoll, poll, read, write,
 *               fsync, open, sleep, ...): only when the innermost frame is a
 *               blocking call and no runtime frame (ART suspending threads,
 *               a debugger) or idle looper lies between it and the app
 * The top app frame is the innermost frame outside the platform (android.,
 * java., ...) and the common libraries (androidx., kotlin., com.google.),
 * else the innermost library frame.  The app's own work, an idle main
 * thread and anything less plain are no blocker: all fields NULL. */
typedef struct hg_blocker {
	const char *kind;       /* static string as above; NULL: no blocker */
	const char *line;       /* the line (arena) */
	const char *holder;     /* lock: the holder's name normalized ("cart-sync-N"),
	                           NULL when unnamed; else NULL */
	const char *frame;      /* the frame the line names ("CartDao.save",
	                           "IActivityManager.getRunningAppProcesses", a native
	                           function); NULL when none */
} hg_blocker;

/* Fills *out from ts as hg_threads_analyse left it (ts borrowed; strings
 * owned by arena).  0, or HG_ENOMEM (then *out is all NULL). */
int hg_threads_blocker(const hg_threads *ts, hg_arena *arena, hg_blocker *out);

#endif

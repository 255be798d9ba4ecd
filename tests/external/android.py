"""Android ANR dumps: the checks of sentry-java, backtrace-android,
bugsnag-android and datadog-android (testdata/external/<source>/expected.json,
one entry of a case's "checks" per upstream assertion, counted one each).

Each check names where to look, then a field:
  {"report": F}                      a field of the report
  {"dump": F}                        a figure of the whole dump
  {"thread": SEL, "field": F}        a thread's field
  {"thread": SEL, "lock": A, ...}    a lock the thread's lines name (address A)
  {"thread": SEL, "frame": P, ...}   a frame of the thread
  {"thread_index": I, ...}           the thread at index I of the dump
                                     (hangar's threads[] are in input order;
                                     -1 is the last), then as above
  {"image": {"code_id": B}, ...}     the images[] entry whose build_id is B
SEL is {"name": N} (the first thread of that name) or {"main": true} (the
thread flagged `main`).  P is "top+N" (frames[N]: hangar lists frames
innermost first) or "bottom+N" (frames[len - 1 - N]).
"""
import re

from common import Absent, Result, acceptance, field as member, frame_image, num, \
    real_threads, same, same_list, same_number

# Sentry's SentryLockReason types, in the order its parser keeps the larger
# when one address has several lines (ThreadDumpParser combineThreadLocks).
LOCK_RANK = {'LOCKED': 1, 'WAITING': 2, 'SLEEPING': 4, 'BLOCKED': 8}
# hangar's locks[].kind -> sentry's type.  "released" is a "- locked" line
# written after a wait gave the monitor up: sentry reads it as LOCKED.
LOCK_TYPE = {'held': 'LOCKED', 'released': 'LOCKED', 'waiting on': 'WAITING',
             'parking': 'WAITING', 'sleeping on': 'SLEEPING', 'waiting to lock': 'BLOCKED'}

# "(deleted)" and "(offset 0x...)" that a maps line writes after a file
# name: sentry's `package` keeps them, hangar's `image` is the file alone.
MAP_NOTES = re.compile(r'(?: \(deleted\)| \(offset 0x[0-9a-fA-F]+\))+$')


def find_thread(rep, check):
    """The thread a check is about, or Absent."""
    threads = real_threads(rep)
    if 'thread_index' in check:
        i = check['thread_index']
        return threads[i] if -len(threads) <= i < len(threads) else Absent(
            'no thread at index %d of %d' % (i, len(threads)))
    sel = check['thread']
    if 'name' in sel:
        for t in threads:
            if t.get('name') == sel['name']:
                return t
        return Absent('no thread named %r' % sel['name'])
    for t in threads:
        if 'main' in (t.get('flags') or []):
            return t
    return Absent('no thread flagged main')


def thread_label(check):
    if 'thread_index' in check:
        return 'threads[%d]' % check['thread_index']
    sel = check['thread']
    return 'thread %r' % sel['name'] if 'name' in sel else 'main thread'


def nothing(value):
    """hangar writes -1 or null for a number the dump does not give."""
    return None if value is None or value == -1 else value


def thread_field(thread, field):
    """A thread's field as the upstream tests name it:
      id            ART's tid=, else the kernel's sysTid (a thread without
                    ART's tid, as in a native-only dump, is known by it)
      tid, sys_tid, priority, daemon, name, state    as hangar writes them
      state_lower   the state in lower case (DataDog's enum names)
      is_crashed    flagged `blamed` (the thread the report is about)
      is_main       flagged `main`
      frames_count  the number of frames
      stack_text    every frame's text, in order"""
    flags = thread.get('flags') or []
    frames = thread.get('frames') or []
    if field == 'id':
        tid = nothing(thread.get('tid'))
        return tid if tid is not None else nothing(thread.get('sys_tid'))
    if field in ('tid', 'sys_tid', 'priority'):
        return nothing(thread.get(field))
    if field in ('daemon', 'name', 'state'):
        return member(thread, field)
    if field == 'state_lower':
        state = thread.get('state')
        return state.lower() if isinstance(state, str) else state
    if field == 'is_crashed':
        return 'blamed' in flags
    if field == 'is_main':
        return 'main' in flags
    if field == 'frames_count':
        return len(frames)
    if field == 'stack_text':
        return [f.get('text') for f in frames]
    raise ValueError('unknown thread field %r' % field)


def same_addr(a, b):
    return num(a) is not None and num(a) == num(b)


def lock_field(thread, addr, field):
    """The lock at `addr` as sentry's heldLocks has it: its type is the
    largest (LOCK_RANK) of the types of the thread's lock lines at that
    address (hangar's locks[]); thread_id is the holder a "waiting to lock"
    line names (held_by)."""
    lines = [x for x in thread.get('locks') or [] if same_addr(x.get('addr'), addr)]
    if not lines:
        return Absent('no lock line at %s' % addr)
    if field == 'type':
        types = [LOCK_TYPE.get(x.get('kind')) for x in lines]
        if None in types:
            return Absent('lock kind %r' % lines[types.index(None)].get('kind'))
        return max(types, key=LOCK_RANK.get)
    if field == 'thread_id':
        for x in lines:
            if x.get('kind') == 'waiting to lock':
                return nothing(x.get('held_by'))
        return None
    raise ValueError('unknown lock field %r' % field)


def find_frame(thread, where):
    frames = thread.get('frames') or []
    side, n = where.split('+')
    i = int(n) if side == 'top' else len(frames) - 1 - int(n)
    if not 0 <= i < len(frames):
        return None, Absent('no frame %s of %d' % (where, len(frames)))
    return i, frames[i]


def frame_lock(thread, index, field):
    """sentry's frame.lock: the last lock line written under the frame
    (hangar's locks[].frame is the index of the frame a line follows)."""
    lines = [x for x in thread.get('locks') or [] if x.get('frame') == index]
    if not lines:
        return Absent('no lock line under this frame')
    x = lines[-1]
    return {'address': x.get('addr'), 'class': x.get('class'),
            'type': LOCK_TYPE.get(x.get('kind'), x.get('kind')),
            'thread_id': nothing(x.get('held_by'))}[field]


def frame_field(rep, frame, field):
    """A frame's field as the upstream tests name it.  A Java frame
    (kind "java") has class/method/file/line, a native one pc/image/symbol
    (with its +offset)/name (without)/offset:
      module        Java: class
      function      Java: method; native: name (the symbol without +offset)
      filename      Java: file
      lineno        Java: line; native: the symbol's +offset (sentry's rule)
      package       native: image (see frame_package)
      instruction_addr  native: pc, as a number
      code_id       native: the build_id of its images[] entry (null without)
      platform      "native" or "java": the frame's kind
      is_jni        a Java frame whose file is "Native method"
      text          the frame as written, trimmed
      symbol_with_offset  native: symbol
      bugsnag_method  Java: class.method; native: name
      bugsnag_file  Java: file; native: image
      bugsnag_line  Java: line; native: pc as a number (bugsnag's rule)"""
    java = member(frame, 'kind') == 'java'
    if field in ('text', 'platform'):
        return member(frame, 'text' if field == 'text' else 'kind')
    if field == 'is_jni':
        return java and (frame.get('file') or '').lower() == 'native method'
    if java:
        if field == 'bugsnag_method':
            return '%s.%s' % (frame.get('class'), frame.get('method'))
        key = {'module': 'class', 'function': 'method', 'filename': 'file', 'lineno': 'line',
               'bugsnag_file': 'file', 'bugsnag_line': 'line'}.get(field)
        return member(frame, key) if key else Absent('a Java frame has no ' + field)
    if field in ('function', 'bugsnag_method'):
        return member(frame, 'name')
    if field == 'lineno':
        symbol = member(frame, 'symbol')
        if isinstance(symbol, Absent):
            return symbol
        return num(frame['offset']) if symbol and 'offset' in frame else None
    if field in ('package', 'bugsnag_file'):
        return member(frame, 'image')
    if field == 'instruction_addr':
        return member(frame, 'pc')
    if field == 'bugsnag_line':
        return num(frame.get('pc'))
    if field == 'code_id':
        image = frame_image(rep, frame)
        return member(image, 'build_id') if image else None
    if field == 'symbol_with_offset':
        return member(frame, 'symbol')
    return Absent('a native frame has no ' + field)


def frame_package(label, expected, frame):
    """sentry's `package` is the maps name as the line writes it, with the
    kernel's " (deleted)" and " (offset 0x...)" notes; hangar's `image` is
    the file alone.  They agree when the image is the name without those
    notes and the frame's text still holds the whole name."""
    got = member(frame, 'image')
    base = MAP_NOTES.sub('', expected) if isinstance(expected, str) else expected
    ok = got == base and (base == expected or expected in (frame.get('text') or ''))
    return Result(label, expected, got, ok)


def dump_figure(rep, what):
    threads = real_threads(rep)
    with_frames = [t for t in threads if t.get('frames')]
    if what == 'threads_count':
        return len(threads)
    if what == 'thread_names':
        return [t.get('name') for t in threads]
    if what == 'threads_with_frames':
        return len(with_frames)
    if what == 'first_thread_with_frames_name':
        return with_frames[0].get('name') if with_frames else None
    if what == 'blamed_count':
        return sum('blamed' in (t.get('flags') or []) for t in threads)
    raise ValueError('unknown dump figure %r' % what)


def report_field(rep, what):
    """abi and pid are in the report's `meta` (an ANR trace's header);
    device (the fingerprint), process and time_written are its own."""
    if what in ('abi', 'pid'):
        return member(rep.get('meta') or {}, what)
    return member(rep, what)


def check_one(run, rep, check):
    want = check['equals']
    if check.get('dump') == 'not_rejected':
        return acceptance('read', want, run)
    if rep is None:
        label = check.get('dump') or check.get('report') or check.get('field')
        return Result(label, want, Absent(run.why_absent()), False)
    if 'dump' in check:
        got = dump_figure(rep, check['dump'])
        compare = same_list if isinstance(want, list) else same
        return compare(check['dump'], want, got)
    if 'report' in check:
        return same(check['report'], want, report_field(rep, check['report']))
    if 'image' in check:
        code_id = check['image']['code_id']
        label = 'image %s %s' % (code_id, check['field'])
        for image in rep.get('images') or []:
            if (image.get('build_id') or '').lower() == code_id.lower():
                return same(label, want, image.get('path'))
        return Result(label, want, Absent('no image with that build_id'), False)
    label = thread_label(check)
    thread = find_thread(rep, check)
    field = check['field']
    if 'lock' in check:
        label += ' lock %s %s' % (check['lock'], field)
    elif 'frame' in check:
        label += ' frame %s %s' % (check['frame'], field)
    else:
        label += ' ' + field
    if isinstance(thread, Absent):
        return Result(label, want, thread, False)
    if 'lock' in check:
        return same(label, want, lock_field(thread, check['lock'], field))
    if 'frame' not in check:
        got = thread_field(thread, field)
        return (same_list if isinstance(want, list) else same)(label, want, got)
    index, frame = find_frame(thread, check['frame'])
    if isinstance(frame, Absent):
        return Result(label, want, frame, False)
    if field.startswith('lock.'):
        got = frame_lock(thread, index, field[5:])
        compare = same_number if field == 'lock.address' else same
        return compare(label, want, got)
    if field == 'package':
        return frame_package(label, want, frame)
    got = frame_field(rep, frame, field)
    if field == 'instruction_addr':
        return same_number(label, want, got)
    return same(label, want, got)


def evaluate(case, get, **_):
    """The results of one case's checks (one each)."""
    run = get(case['file'])
    rep = run.report()
    return [check_one(run, rep, c) for c in case.get('checks', [])]

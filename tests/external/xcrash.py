"""xCrash tombstones: the fields xCrash's own TombstoneParser reads from
its documented tombstones (native, Java and ANR).

  accepted            read (true)
  kind                hangar's `kind` for xCrash's Crash type: 'anr' is
                      "anr", 'java' is "crash", 'native' is "native_crash"
                      (the expected "crash" says crash; the case's "xcrash"
                      note says which)
  pid                 meta.pid
  process, app_version, device (the Build fingerprint)   the report's own
  blamed_thread_tid   the blamed thread's sys_tid (xCrash's tid is the
                      kernel's)
  blamed_thread_name  the blamed thread's name
  reason_contains     a whole word of the reason (SIGSEGV, SEGV_MAPERR)
  blamed_native_pcs   the pcs of the blamed thread's native frames, as
                      numbers, in order (its `backtrace:`)
  blamed_java_frames  the text of the blamed thread's Java frames, in
                      order (its `java stacktrace:`)
  exception_type, exception_message   exceptions[0] type / message
  first_exception_frames  the text of the first frames of the thread of
                      exceptions[0] (as many as expected)
"""
import re

from common import Absent, Result, acceptance, blamed_thread, same, same_list, \
    same_numbers, text_has_word

KINDS = {'anr': 'anr', 'java': 'crash', 'native': 'native_crash'}


def expected_kind(check):
    """The hangar kind for the case's Crash type ("Crash type 'native'")."""
    found = re.search(r"Crash type '(\w+)'", check.get('xcrash', ''))
    return KINDS.get(found.group(1), check['equals']) if found else check['equals']


def check_one(check, run, rep):
    kind = check['check']
    want = check['equals']
    if kind == 'accepted':
        return acceptance(kind, want, run)
    if rep is None:
        return Result(kind, want, Absent(run.why_absent()), False)
    if kind == 'kind':
        return same(kind, expected_kind(check), rep.get('kind'))
    if kind == 'pid':
        return same(kind, want, (rep.get('meta') or {}).get('pid', Absent('no meta.pid')))
    if kind in ('process', 'app_version', 'device'):
        return same(kind, want, rep.get(kind, Absent('no ' + kind)))
    if kind == 'reason_contains':
        return text_has_word(kind, want, rep.get('reason'))
    if kind in ('exception_type', 'exception_message', 'first_exception_frames'):
        exceptions = rep.get('exceptions') or []
        if not exceptions:
            return Result(kind, want, Absent('no exception'), False)
        if kind != 'first_exception_frames':
            return same(kind, want, exceptions[0].get(kind.split('_')[1]))
        index = exceptions[0].get('thread')
        threads = rep.get('threads') or []
        if not isinstance(index, int) or not 0 <= index < len(threads):
            return Result(kind, want, Absent('the exception has no frames'), False)
        texts = [f.get('text') for f in threads[index].get('frames') or []]
        return same_list(kind, want, texts[:len(want)])
    thread = blamed_thread(rep)
    if isinstance(thread, Absent):
        return Result(kind, want, thread, False)
    frames = thread.get('frames') or []
    if kind == 'blamed_thread_tid':
        return same(kind, want, thread.get('sys_tid'))
    if kind == 'blamed_thread_name':
        return same(kind, want, thread.get('name'))
    if kind == 'blamed_native_pcs':
        return same_numbers(kind, want, [f.get('pc') for f in frames if f.get('kind') == 'native'])
    if kind == 'blamed_java_frames':
        return same_list(kind, want, [f.get('text') for f in frames if f.get('kind') == 'java'])
    raise ValueError('unknown xcrash check %r' % kind)


def evaluate(case, get, **_):
    run = get(case['file'])
    rep = run.report()
    return [check_one(c, run, rep) for c in case.get('checks', [])]

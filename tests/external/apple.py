"""KSCrash reports: KSCrash's own Apple-format rendering of its example
reports and its crash doctor (source kscrash), and sentry-cocoa's converter
and doctor tests (source sentry-cocoa).

hangar has no structured exception fields for a KSCrash report: why the
app stopped is its `reason`, a sentence ("mach exception EXC_BAD_ACCESS
(KERN_INVALID_ADDRESS), signal SIGSEGV (SEGV_NOOP) at 0xffffffff").  So a
mach exception, signal or code name agrees when it is a whole word of the
reason, a fault address when a 0x-number of the reason equals it, a
diagnosis when its words are in the reason.  An NSException or C++
exception is hangar's exceptions[] (type, message).  A KSCrash thread is
hangar's thread whose `tid` is the KSCrash index; the crashed thread is the
blamed one (`threads[blamed]`).

The recrash (KSCrash's "Handler crashed while reporting" section, the
report's recrash_report) is hangar's recrash part, looked for as
  1. a `recrash` member of the report: an object with its `reason` and its
     crashed thread, as `thread` (hg_recrash: the one thread, the crashed
     one) or as `threads` with `blamed`, as a report has them; else
  2. a later report of the same input whose `detail` is "recrash";
without either, each recrash check disagrees.
"""
import datetime
import json
import os
import re

from common import Absent, Result, acceptance, blamed_thread, field as member, frame_image, \
    num, real_threads, same, same_number, text_has, text_has_number, text_has_word


def recrash_part(run, rep):
    """The recrash part, with a report's members (reason, threads, blamed)."""
    part = rep.get('recrash')
    if isinstance(part, dict):
        if 'threads' in part or not isinstance(part.get('thread'), dict):
            return part
        return dict(part, threads=[part['thread']], blamed=0)
    for later in run.reports()[1:]:
        if later.get('detail') == 'recrash':
            return later
    return Absent('hangar writes no recrash part')


def thread_by_index(part, index):
    for t in part.get('threads') or []:
        if t.get('tid') == index and 'cause' not in (t.get('flags') or []):
            return t
    return Absent('no thread with KSCrash index %d' % index)


def frame_symbol_agrees(want, frame):
    """KSCrash prints symbols as the report wrote them (C++ mangled);
    hangar's `symbol` is as written, `mangled` the mangled form it
    demangled, `name` the readable one: the exact text is any of them."""
    return want is not None and want in (frame.get('symbol'), frame.get('mangled'),
                                         frame.get('name'))


def thread_frames(label, want, thread):
    """One check per expected thread: every frame, in order, with the same
    image name (frame `image`), the same address (`pc`, as a number) and
    the same symbol (frame_symbol_agrees); as many frames as expected."""
    if isinstance(thread, Absent):
        return Result(label, '%d frames' % len(want), thread, False)
    frames = thread.get('frames') or []
    for i, (w, f) in enumerate(zip(want, frames)):
        if f.get('image') != w['image']:
            return Result('%s: frame %d image' % (label, i), w['image'], f.get('image'), False)
        if num(f.get('pc')) != num(w['address']):
            return Result('%s: frame %d address' % (label, i), w['address'], f.get('pc'), False)
        if not frame_symbol_agrees(w['symbol'], f):
            return Result('%s: frame %d symbol' % (label, i), w['symbol'],
                          f.get('symbol'), False)
    if len(frames) != len(want):
        return Result(label + ': frame count', len(want), len(frames), False)
    return Result(label, '%d frames' % len(want), '%d frames' % len(frames), True)


def kscrash_case(case, run):
    """A KSCrash expected.json case has no "checks": each of its fields is
    one check (55 in the 14 cases), and each thread of its "threads" one
    more (76): 131 in all, issue 27's count.
      crashed_thread      the blamed thread's tid (KSCrash index)
      mach_exception, signal, code_name   a whole word of the reason
      fault_address       a 0x-number of the reason
      nsexception_name / nsexception_reason   exceptions[0] type / message
      diagnosis_contains  a substring of the reason
      reason_matches      a regular expression the reason matches (search)
      hang_ms             `cost` (whole ms) within 1 ms
      threads[N]          thread_frames of the thread with tid N
    report_id, basis, upstream_diagnosis and hang_ms_note are not answers
    (the report's identity, where the answers were read, notes)."""
    rep = run.report()
    part = rep
    if rep is None:
        part = Absent(run.why_absent())
    elif case['section'] == 'recrash':
        part = recrash_part(run, rep)
    prefix = 'recrash ' if case['section'] == 'recrash' else ''
    results = []
    for key in ('crashed_thread', 'mach_exception', 'signal', 'code_name', 'fault_address',
                'nsexception_name', 'nsexception_reason', 'diagnosis_contains',
                'reason_matches', 'hang_ms'):
        if key not in case:
            continue
        want, label = case[key], prefix + key
        if isinstance(part, Absent):
            shown = '/%s/' % want if key == 'reason_matches' else want
            results.append(Result(label, shown, part, False))
            continue
        reason = part.get('reason')
        exceptions = part.get('exceptions') or []
        if key == 'crashed_thread':
            thread = blamed_thread(part)
            results.append(same(label, want, None if isinstance(thread, Absent)
                                else thread.get('tid')))
        elif key in ('mach_exception', 'signal', 'code_name'):
            results.append(text_has_word(label, want, reason))
        elif key == 'fault_address':
            results.append(text_has_number(label, want, reason))
        elif key in ('nsexception_name', 'nsexception_reason'):
            field = 'type' if key == 'nsexception_name' else 'message'
            got = member(exceptions[0], field) if exceptions else Absent('no exception')
            results.append(same(label, want, got))
        elif key == 'diagnosis_contains':
            results.append(text_has(label, want, reason))
        elif key == 'reason_matches':
            ok = isinstance(reason, str) and re.search(want, reason) is not None
            results.append(Result(label, '/%s/' % want, reason, ok))
        else:
            cost = part.get('cost')
            ok = isinstance(cost, int) and abs(cost - want) <= 1
            results.append(Result(label + ' (within 1 ms)', want, cost, ok))
    for index, frames in sorted(case.get('threads', {}).items(), key=lambda kv: int(kv[0])):
        label = '%sthread %s frames' % (prefix, index)
        thread = part if isinstance(part, Absent) else thread_by_index(part, int(index))
        results.append(thread_frames(label, frames, thread))
    return results


def epoch(time):
    """hangar's `time` (2017-04-03T09:13:17.000Z, UTC) in seconds."""
    if not isinstance(time, str):
        return time
    stamp = datetime.datetime.strptime(time, '%Y-%m-%dT%H:%M:%S.%fZ')
    return int(stamp.replace(tzinfo=datetime.timezone.utc).timestamp())


def image_named(rep, name):
    for image in rep.get('images') or []:
        if image.get('name') == name:
            return image
    return Absent('no image named %r' % name)


def image_agrees(label, field, want, got):
    """An image field: path exact, uuid the same hex digits (any case),
    load_addr and vmaddr as numbers, size as an integer."""
    if field == 'uuid':
        ok = isinstance(got, str) and isinstance(want, str) and got.upper() == want.upper()
        return Result(label, want, got, ok)
    if field in ('load_addr', 'vmaddr', 'size'):
        return same_number(label, want, got)
    return same(label, want, got)


# sentry's converted debug image field for each hangar images[] field.
CONVERTED = {'path': 'code_file', 'uuid': 'debug_id', 'load_addr': 'image_addr',
             'vmaddr': 'image_vmaddr', 'size': 'image_size'}


def images_match_converted(label, check, rep, folder):
    """Every image hangar lists (the images its frames lie in, as sentry's
    debug images are) is in sentry's converted event (by path), with the
    same fields; hangar must list at least one."""
    with open(os.path.join(folder, check['converted']), encoding='utf-8') as f:
        converted = {i.get('code_file'): i for i in json.load(f)['debug_meta']['images']}
    images = rep.get('images') or []
    if not images:
        return Result(label, 'the images frames use', Absent('no images'), False)
    for image in images:
        theirs = converted.get(image.get('path'))
        if theirs is None:
            return Result(label, 'an image of sentry\'s event', image.get('path'), False)
        for field in check['fields']:
            # sentry writes image_vmaddr only when it is not 0 (the 15 images of
            # raw-crash.json without one are the 15 whose vmaddr is 0).
            want = theirs.get(CONVERTED[field], '0x0' if field == 'vmaddr' else None)
            r = image_agrees('%s %s %s' % (label, image.get('name'), field), field,
                             want, image.get(field))
            if not r.ok:
                return r
    return Result(label, '%d images agree' % len(images), '%d images agree' % len(images),
                  True)


def exception_texts(rep, fields):
    return [e.get(f) for e in rep.get('exceptions') or [] for f in fields
            if isinstance(e.get(f), str)]


def crashed_frame(check, want, rep, _run):
    """The blamed thread's frame top+N: pc (a number), image_load_addr
    (its image's load_addr, a number), function (its readable `name`,
    null without a symbol)."""
    label = 'crashed thread frame %s %s' % (check['frame'], check['field'])
    thread = blamed_thread(rep)
    n = int(check['frame'].split('+')[1])
    frames = [] if isinstance(thread, Absent) else thread.get('frames') or []
    if n >= len(frames):
        return Result(label, want, thread if isinstance(thread, Absent)
                      else Absent('%d frames' % len(frames)), False)
    frame = frames[n]
    if check['field'] == 'pc':
        return same_number(label, want, frame.get('pc'))
    if check['field'] == 'image_load_addr':
        image = frame_image(rep, frame)
        return same_number(label, want, image.get('load_addr') if image else Absent('no image'))
    return same(label, want, member(frame, 'name'))


def image_field(check, want, rep, _run):
    """The images[] entry of that name: path, uuid, load_addr, vmaddr,
    size (image_agrees)."""
    label = 'image %s %s' % (check['image_name'], check['field'])
    image = image_named(rep, check['image_name'])
    if isinstance(image, Absent):
        return Result(label, want, image, False)
    return image_agrees(label, check['field'], want, image.get(check['field']))


def thread_index_field(check, want, rep, _run):
    """threads[index]: blamed (flagged), frames_count."""
    label = 'threads[%d] %s' % (check['index'], check['field'])
    threads = real_threads(rep)
    if check['index'] >= len(threads):
        return Result(label, want, Absent('%d threads' % len(threads)), False)
    t = threads[check['index']]
    got = ('blamed' in (t.get('flags') or []) if check['field'] == 'blamed'
           else len(t.get('frames') or []))
    return same(label, want, got)


def crashed_frames_count(check, want, rep, _run):
    """The number of frames of the thread whose tid is crashed_index."""
    thread = thread_by_index(rep, check['crashed_index'])
    label = 'thread %d frames_count' % check['crashed_index']
    return same(label, want, thread if isinstance(thread, Absent)
                else len(thread.get('frames') or []))


def exception_name(check, want, rep, _run):
    """exceptions[0] type (exception_type) or message (exception_message)."""
    exceptions = rep.get('exceptions') or []
    field = 'type' if check['check'] == 'exception_type' else 'message'
    return same(check['check'], want, member(exceptions[0], field) if exceptions
                else Absent('no exception'))


def exception_contains(check, want, rep, _run):
    """A substring of an exception's type or message (exception_message_
    contains: of a message; exception_or_reason_contains: or of the reason)."""
    kind = check['check']
    fields = ('message',) if kind == 'exception_message_contains' else ('type', 'message')
    texts = exception_texts(rep, fields)
    if kind == 'exception_or_reason_contains' and isinstance(rep.get('reason'), str):
        texts.append(rep['reason'])
    return Result('%s %r' % (kind, want), want, texts, any(want in t for t in texts))


def exception_word(check, want, rep, run):
    """signal_name, mach_exception: a whole word of the reason, or of the
    recrash part's reason (sentry takes a recrash report's exception from
    its recrash_report)."""
    reason = rep.get('reason')
    texts = [reason] if isinstance(reason, str) else []
    part = recrash_part(run, rep)
    if not isinstance(part, Absent) and isinstance(part.get('reason'), str):
        texts.append(part['reason'])
    return text_has_word(check['check'], want, ' | '.join(texts) if texts else reason)


def reason_contains(check, want, rep, _run):
    """fault_address, and reason_contains of an address: a 0x-number of
    the reason; other reason_contains: a substring of it."""
    if re.fullmatch(r'0x[0-9a-fA-F]+', want):
        return text_has_number(check['check'], want, rep.get('reason'))
    return text_has(check['check'], want, rep.get('reason'))


def without_empty_reporter(rep):
    """The threads sentry lists: not a frameless one flagged `reporter`."""
    return [t for t in real_threads(rep)
            if not ('reporter' in (t.get('flags') or []) and not t.get('frames'))]


def blamed_tid(rep):
    thread = blamed_thread(rep)
    return None if isinstance(thread, Absent) else thread.get('tid')


# Checks of one value of the report: check -> the value, compared exactly.
VALUES = {
    'time_epoch': lambda rep: epoch(rep.get('time')),
    'images_count': lambda rep: len(rep.get('images') or []),
    'threads_count': lambda rep: len(real_threads(rep)),
    'threads_count_excluding_empty_reporter': lambda rep: len(without_empty_reporter(rep)),
    'blamed_is_crashed_thread': blamed_tid,
    'image_names_set': lambda rep: sorted({i.get('name') for i in rep.get('images') or []},
                                          key=str),
    'foreground': lambda rep: member(rep, 'foreground'),
}

CHECKS = {
    'crashed_frame': crashed_frame, 'image_field': image_field,
    'thread_index_field': thread_index_field, 'crashed_frames_count': crashed_frames_count,
    'exception_type': exception_name, 'exception_message': exception_name,
    'exception_type_or_message_contains': exception_contains,
    'exception_message_contains': exception_contains,
    'exception_or_reason_contains': exception_contains,
    'signal_name': exception_word, 'mach_exception': exception_word,
    'fault_address': reason_contains, 'reason_contains': reason_contains,
}


def cocoa_check(check, name, run, rep, get, folder):
    """One sentry-cocoa check, by its "check":
      accepted          read (true), or refused or warned about (false)
      output_contains   a substring of `hangar stack FILE` (the text)
      time_epoch        `time` in Unix seconds
      images_count, threads_count   the number of images[] / threads[]
      threads_count_excluding_empty_reporter   without_empty_reporter
      blamed_is_crashed_thread   the blamed thread's tid is crashed_index
      image_names_set   the set of images[] names
      foreground        `foreground`
      images_match_converted   images_match_converted
      and the functions of CHECKS, whose comments say what they compare."""
    kind = check['check']
    want = check.get('equals', check.get('crashed_index'))
    if kind == 'accepted':
        return acceptance(kind, want, run)
    if kind == 'output_contains':
        text = get(name, as_json=False).text
        if not isinstance(text, str) or want not in text:
            lines = len(text.splitlines()) if isinstance(text, str) else 0
            return Result(kind, want, Absent('not in the %d lines of the text' % lines), False)
        return Result(kind, want, want, True)
    if rep is None:
        return Result(kind, want, Absent(run.why_absent()), False)
    if kind in VALUES:
        if kind == 'image_names_set':
            want = sorted(want)
        label = 'blamed thread index' if kind == 'blamed_is_crashed_thread' else kind
        return same(label, want, VALUES[kind](rep))
    if kind == 'images_match_converted':
        return images_match_converted(kind, check, rep, folder)
    if kind not in CHECKS:
        raise ValueError('unknown sentry-cocoa check %r' % kind)
    return CHECKS[kind](check, want, rep, run)


def evaluate(case, get, source, folder):
    run = get(case['file'])
    if source == 'kscrash':
        return kscrash_case(case, run)
    rep = run.report()
    return [cocoa_check(c, case['file'], run, rep, get, folder) for c in case.get('checks', [])]

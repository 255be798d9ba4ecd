"""MetricKit call-stack trees: sentry-cocoa's MXCallStackTree tests.

hangar shows a MetricKit tree as threads: each call stack's heaviest path
as a thread (not flagged `sample`; the thread-attributed one flagged
`blamed`), followed by one thread flagged `sample` per path of that call
stack (each root-to-leaf path of the tree, weighted).  A frame's `pc` is
MetricKit's address, frames[0] the call stack's root frame (the order
MetricKit nests them), `image` its binaryName, images[] by binaryUUID.
So, with "call stack i" the i-th thread not flagged `sample`:
  accepted            read (true), or refused or warned about (false)
  call_stacks         the number of call stacks
  call_stack_blamed   call stack i is flagged `blamed`
  call_stack_paths    the number of `sample` threads after call stack i
                      (before the next call stack)
  heaviest_path       call stack i's frames' pcs, as numbers, in order
  heaviest_path_len   the number of call stack i's frames
  heaviest_path_images  call stack i's frames' `image`, in order
  sample_paths_multiset  every `sample` thread's pcs (as numbers, in
                      order), compared as a multiset of paths
  frame_has_no_binary_name  call stack i's frames[0] names no binary: its
                      `image` is null or its image's UUID (what hangar
                      writes without a binaryName)
  image_load_addr     the images[] entry with that UUID (any case): its
                      load_addr, as a number
"""
from common import Absent, Result, acceptance, frame_image, num, same, same_list, \
    same_number, same_numbers


def call_stacks(rep):
    """[(call stack thread, [its sample threads])] in order."""
    stacks = []
    for t in rep.get('threads') or []:
        flags = t.get('flags') or []
        if 'cause' in flags:
            continue
        if 'sample' in flags and stacks:
            stacks[-1][1].append(t)
        elif 'sample' not in flags:
            stacks.append((t, []))
    return stacks


def pcs(thread):
    return [num(f.get('pc')) for f in thread.get('frames') or []]


def check_one(check, run, rep):
    kind = check['check']
    want = check['equals']
    if kind == 'accepted':
        return acceptance(kind, want, run)
    if rep is None:
        return Result(kind, want, Absent(run.why_absent()), False)
    stacks = call_stacks(rep)
    if kind == 'call_stacks':
        return same(kind, want, len(stacks))
    if kind == 'image_load_addr':
        label = 'image %s load_addr' % check['uuid']
        for image in rep.get('images') or []:
            if (image.get('uuid') or '').upper() == check['uuid'].upper():
                return same_number(label, want, image.get('load_addr'))
        return Result(label, want, Absent('no image with that UUID'), False)
    if kind == 'sample_paths_multiset':
        got = sorted(pcs(s) for _, samples in stacks for s in samples)
        return Result(kind, sorted(want), got, got == sorted(want))
    label = 'call stack %d %s' % (check['index'], kind)
    if check['index'] >= len(stacks):
        return Result(label, want, Absent('%d call stacks' % len(stacks)), False)
    stack, samples = stacks[check['index']]
    frames = stack.get('frames') or []
    if kind == 'call_stack_blamed':
        return same(label, want, 'blamed' in (stack.get('flags') or []))
    if kind == 'call_stack_paths':
        return same(label, want, len(samples))
    if kind == 'heaviest_path':
        return same_numbers(label, want, [f.get('pc') for f in frames])
    if kind == 'heaviest_path_len':
        return same(label, want, len(frames))
    if kind == 'heaviest_path_images':
        return same_list(label, want, [f.get('image') for f in frames])
    if kind == 'frame_has_no_binary_name':
        if not frames:
            return Result(label, want, Absent('no frame'), False)
        image = frame_image(rep, frames[0]) or {}
        got = frames[0].get('image') in (None, image.get('uuid'))
        return Result(label, want, frames[0].get('image'), got == want)
    raise ValueError('unknown metrickit check %r' % kind)


def evaluate(case, get, **_):
    run = get(case['file'])
    rep = run.report()
    return [check_one(c, run, rep) for c in case.get('checks', [])]

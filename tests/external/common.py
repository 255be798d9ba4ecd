"""What every source's checks share: one hangar run per input, and the
rules that turn hangar's output into a value to compare.

A check is compared, never approximated: numbers as numbers (an address
written 0x000668a8 is the number 0x668a8, in either form), text as the
exact text, lists element by element in order.  A value hangar does not
write at all is a disagreement (shown as `(none: why)`), never a skip.
"""
import json
import re


class Absent:
    """hangar wrote no such value (no thread, no frame, no field)."""

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return '(none: %s)' % self.why


def show(value):
    """A value as a disagreement line prints it: JSON, or (none: why)."""
    if isinstance(value, Absent):
        return repr(value)
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:197] + '...'


class Result:
    """One check: its label (what was compared), the answer the other
    project expects, what hangar gave, and whether they agree."""

    def __init__(self, label, expected, got, ok):
        self.label, self.expected, self.got, self.ok = label, expected, got, bool(ok)

    def line(self, source, case_file):
        return '%s %s %s: expected %s, got %s' % (source, case_file, self.label,
                                                  show(self.expected), show(self.got))


def field(obj, key):
    """obj[key], or Absent when hangar's object has no such member (a
    null is a value: "no symbol"; a missing member is no answer)."""
    if not isinstance(obj, dict):
        return Absent('no object')
    return obj[key] if key in obj else Absent('no member %r' % key)


def same(label, expected, got):
    """Exact equality; a hangar value that is Absent never agrees."""
    return Result(label, expected, got, not isinstance(got, Absent) and got == expected)


def num(value):
    """An integer from an integer or a decimal or 0x-hex string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text, 16) if text.lower().startswith('0x') else int(text, 10)
        except ValueError:
            return None
    return None


def same_number(label, expected, got):
    """Two addresses or integers as numbers: 0x000668a8 == 0x668a8 == 419_000."""
    want, have = num(expected), num(got)
    ok = want is not None and have is not None and want == have
    if expected is None:
        ok = got is None
    return Result(label, expected, got, ok)


def same_numbers(label, expected, got):
    """Two lists of addresses, element by element, in order; the first
    difference is what a failing line shows."""
    if isinstance(got, Absent):
        return Result(label, expected, got, False)
    for i, (want, have) in enumerate(zip(expected, got)):
        if num(want) is None or num(want) != num(have):
            return Result('%s[%d] (of %d)' % (label, i, len(expected)), want, have, False)
    if len(expected) != len(got):
        return Result(label + ' length', len(expected), len(got), False)
    return Result(label, expected, got, True)


def same_list(label, expected, got):
    """Two lists of strings, exactly, in order; the first difference shown."""
    if isinstance(got, Absent):
        return Result(label, expected, got, False)
    for i, (want, have) in enumerate(zip(expected, got)):
        if want != have:
            return Result('%s[%d] (of %d)' % (label, i, len(expected)), want, have, False)
    if len(expected) != len(got):
        return Result(label + ' length', len(expected), len(got), False)
    return Result(label, expected, got, True)


HEX = re.compile(r'\b0x[0-9a-fA-F]+\b')


def text_has_number(label, expected, text):
    """An address check against prose (hangar's `reason`): some 0x-number of
    the text equals the expected address as a number."""
    if not isinstance(text, str):
        return Result(label, expected, text if text is None or isinstance(text, Absent)
                      else Absent('no text'), False)
    want = num(expected)
    ok = want is not None and any(num(h) == want for h in HEX.findall(text))
    return Result(label, expected, text, ok)


def text_has_word(label, expected, text):
    """A name (EXC_CRASH, SIGABRT, KERN_INVALID_ADDRESS) is a whole word of
    the text, same case: SIGBUS does not match SIGBUSY."""
    if not isinstance(text, str):
        return Result(label, expected, text, False)
    pattern = r'(?<![A-Za-z0-9_])' + re.escape(expected) + r'(?![A-Za-z0-9_])'
    return Result(label, expected, text, re.search(pattern, text) is not None)


def text_has(label, expected, text):
    """A substring of the text, same case (hangar's words may be longer:
    "deadlock" is in "the main thread deadlocked")."""
    if not isinstance(text, str):
        return Result(label, expected, text, False)
    return Result(label, expected, text, expected in text)


class Run:
    """hangar stack on one input: exit status, the JSON objects it wrote
    (reports and `{"error": ...}` objects), stderr, and for text runs the
    text."""

    def __init__(self, status, stdout, stderr, as_json):
        self.status, self.stderr = status, stderr
        self.text = None if as_json else stdout
        self.objects = []
        if as_json:
            for line in stdout.splitlines():
                if line.strip():
                    try:
                        self.objects.append(json.loads(line))
                    except ValueError:
                        self.objects.append({'error': 'hangar wrote a line that is not JSON: '
                                             + line[:80]})

    @classmethod
    def of(cls, status, objects, stderr):
        """A Run of one input cut out of a run of several."""
        run = cls(status, '', stderr, True)
        run.objects = objects
        return run

    def reports(self):
        return [o for o in self.objects if 'error' not in o]

    def report(self):
        """The first report read from the input (checks are about it), or None."""
        reports = self.reports()
        return reports[0] if reports else None

    def errors(self):
        return [o['error'] for o in self.objects if 'error' in o]

    def accepted(self):
        """Read without a refusal: exit 0, a report, and no error object."""
        return self.status == 0 and self.report() is not None and not self.errors()

    def warned(self):
        """Read, but with a warning: in a report's `warnings` or on stderr."""
        return (any(r.get('warnings') for r in self.reports())
                or 'warning:' in self.stderr)

    def why_absent(self):
        """Why there is no report, for an Absent value."""
        errors = self.errors()
        if errors:
            return 'refused: ' + errors[0]
        return 'no report (exit %d)' % self.status


def acceptance(label, expected, run):
    """The input is read (expected true), or refused or warned about
    (expected false: the other project rejects it; hangar agrees when it
    refuses it, or reads it with a warning)."""
    if expected:
        got = True if run.accepted() else run.why_absent()
        return Result(label, True, got, run.accepted())
    if run.accepted() and not run.warned():
        return Result(label, 'refused or warned', 'read without a warning', False)
    got = 'refused' if not run.accepted() else 'read with a warning'
    return Result(label, 'refused or warned', got, True)


def real_threads(rep):
    """The report's threads, without the pseudo-threads hangar adds for
    an exception's causes (flag `cause`)."""
    return [t for t in rep.get('threads') or [] if 'cause' not in (t.get('flags') or [])]


def blamed_thread(rep):
    """The blamed thread (`threads[blamed]`), or Absent."""
    index = rep.get('blamed')
    threads = rep.get('threads') or []
    if index is None or not 0 <= index < len(threads):
        return Absent('nothing blamed')
    return threads[index]


def frame_image(rep, frame):
    """The images[] entry a frame lies in (its image_index), or None."""
    index = frame.get('image_index')
    images = rep.get('images') or []
    if isinstance(index, int) and 0 <= index < len(images):
        return images[index]
    return None

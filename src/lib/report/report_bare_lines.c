/* The lines of a bare stack or of Matrix's printed blocks: a logcat prefix
 * taken off, what the line says, an item's fields, and whether a whole
 * input is such a stack (report_bare_stack.c reads the blocks).
 *
 * The forms, as Tencent/matrix writes them (commit 3b8293bd,
 * matrix/matrix-android/matrix-trace-canary/src/main/java/com/tencent/
 * matrix/trace/): MethodItem.toString() is "depth,id,count,cost" (the
 * report's `stack`, TraceDataUtils.stackToString's reportBuilder);
 * MethodItem.print() is one '.' per depth then "id count cost" (its
 * logcatBuilder, each line behind "|*\t\t"); EvilMethodTracer.AnalyseTask
 * .printEvil and LooperAnrTracer.AnrHandleTask.printAnr frame them with
 * ">>>... maybe happens Jankiness!(%sms) <<<" or "maybe happens ANR(%s ms)!",
 * "|*\t\tScene: ", "|*\t\tForeground: ", "|*\t\tStackKey: ",
 * "|*\t\tTraceStack:", "|*\t\t[id count cost]" and a closing "=====" line.
 * Matrix 0.6 printed "|*\tStackKey:" and "|*        .6957 1 17" (issue
 * #235's paste); Matrix 0.5 logged "[analyse result] " and the print()
 * lines bare, then "[analyse key] " and the key's ids one per line. */
#include <string.h>

#include "hangar/beat.h"
#include "report_bare_stack.h"
#include "report_lines.h"

#define HEAD ((size_t)64 << 10) /* what detection looks at, as report_detect.c */

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

static bool starts_ci(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	if (n < k)
		return false;
	for (size_t i = 0; i < k; i++)
		if ((s[i] | 0x20) != (prefix[i] | 0x20))
			return false;
	return true;
}

/* "dd-dd dd:dd:dd" (logcat's threadtime and time formats) or
 * "dddd-dd-dd dd:dd:dd" (-v year, Android Studio), with its milliseconds:
 * its length, else 0. */
static size_t logcat_stamp(const char *s, size_t n)
{
	static const char *const shapes[] = {"dd-dd dd:dd:dd", "dddd-dd-dd dd:dd:dd"};
	for (size_t k = 0; k < 2; k++) {
		size_t m = strlen(shapes[k]), i = 0;
		while (i < m && i < n && (shapes[k][i] == 'd' ? is_digit(s[i]) : s[i] == shapes[k][i]))
			i++;
		if (i == m && i < n && s[i] == '.') /* milliseconds */
			for (i++; i < n && is_digit(s[i]);)
				i++;
		if (i >= m)
			return i;
	}
	return 0;
}

static const char *find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0)
			return s + i;
	return NULL;
}

/* Where the message of a logcat line starts: after "TIME ... TAG: ",
 * "L/TAG( pid): " or "L/TAG: "; for the newer Android Studio form that has
 * no ": ", at Matrix's own "|*", ">>>" or "===".  0 when the line has no
 * logcat prefix. */
static size_t message_start(const char *s, size_t n)
{
	size_t at = logcat_stamp(s, n);
	bool level = n >= 2 && s[1] == '/' && strchr("VDIWEFA", s[0]) && s[0];
	if (!at && !level)
		return 0;
	const char *colon = find(s + at, n - at, ": "), *mark = NULL;
	static const char *const marks[] = {"|*", ">>>>", "====="};
	for (size_t k = 0; at && k < 3; k++) {
		const char *p = find(s + at, n - at, marks[k]);
		if (p && (!mark || p < mark))
			mark = p;
	}
	if (mark && (!colon || mark < colon))
		return (size_t)(mark - s); /* Matrix's text before any ": " of its own */
	if (colon)
		return (size_t)(colon - s) + 2;
	if (n > at && s[n - 1] == ':')
		return n; /* "W/Matrix.EvilMethodTracer:" and nothing after it */
	return 0;
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[i]))
			return false;
	return n > 0;
}

/* Whether s[0..n) is shaped like one item, well formed or not:
 * comma-separated words (two or more: "1,2,1" is an item gone wrong), or
 * depth dots and three blank-separated words (words of letters, digits and
 * signs, so that "1,2,x,4" is an item gone wrong but "200, 15 ms" or "3
 * items left" is not). */
static bool item_shaped(const char *s, size_t n)
{
	bool comma = memchr(s, ',', n) != NULL;
	size_t i = 0, words = 0;
	while (!comma && i < n && s[i] == '.')
		i++;
	while (i < n) {
		while (i < n && blank(s[i]))
			i++;
		size_t w = i;
		while (i < n && (is_digit(s[i]) || s[i] == '-' || s[i] == '+' ||
				 ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')))
			i++;
		if (i == w)
			return false;
		words++;
		while (i < n && blank(s[i]))
			i++;
		if (i < n && comma && s[i] == ',')
			i++;
		else if (i < n && (comma || !blank(s[i - 1])))
			return false;
	}
	return (comma ? words >= 2 : words == 3) && (is_digit(s[0]) || s[0] == '.' || s[0] == '-');
}

/* A "|*" line's body (after "|*" and blanks). */
static void classify_matrix(struct bare_msg *m, const char *b, size_t n, bool in_trace)
{
	m->kind = BL_FIELD;
	m->val = b;
	m->val_len = n;
	static const struct {
		const char *name;
		enum bare_line kind;
	} fields[] = {{"StackKey:", BL_KEY}, {"TraceStack", BL_TRACE}, {"[id count cost]", BL_TRACE},
		      {"Scene:", BL_SCENE}, {"Foreground:", BL_FOREGROUND}};
	for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
		size_t len = strlen(fields[k].name);
		if (starts_ci(b, n, fields[k].name)) {
			m->kind = fields[k].kind;
			m->val = b + len;
			m->val_len = n - len;
			while (m->val_len && blank(*m->val))
				m->val++, m->val_len--;
			return;
		}
	}
	if (starts(b, n, "at "))
		m->kind = BL_FRAME;
	else if (in_trace && n && (b[0] == '.' || is_digit(b[0]) || b[0] == '-'))
		m->kind = BL_ITEM;
}

/* ">>>... maybe happens Jankiness!(856ms) <<<": the tracer and the cost. */
static void classify_header(struct bare_msg *m)
{
	m->kind = BL_HEADER;
	m->header_kind = HG_KIND_SLOW_METHOD;
	const char *p = find(m->s, m->len, "maybe happens ");
	const char *end = m->s + m->len;
	p += strlen("maybe happens ");
	if (starts((const char *)p, (size_t)(end - p), "Input ANR(")) {
		m->header_kind = HG_KIND_ANR;
		p += 10;
	} else if (starts(p, (size_t)(end - p), "ANR(")) {
		m->header_kind = HG_KIND_ANR;
		p += 4;
	} else if ((p = find(p, (size_t)(end - p), "!("))) {
		p += 2;
	} else {
		return;
	}
	const char *d = p;
	while (p < end && is_digit(*p))
		p++;
	m->header_cost = p > d && hg_parse_int64(d, (size_t)(p - d), &m->cost) == 0;
}

static void classify(struct bare_msg *m, bool in_trace)
{
	const char *s = m->s;
	size_t n = m->len;
	m->val = s;
	m->val_len = n;
	m->header_cost = false;
	if (n == 0) {
		m->kind = BL_BLANK;
	} else if (starts(s, n, "|*")) {
		size_t i = 2;
		while (i < n && blank(s[i]))
			i++;
		classify_matrix(m, s + i, n - i, in_trace);
	} else if (starts(s, n, ">>>>") && find(s, n, "maybe happens ")) {
		classify_header(m);
	} else if (starts(s, n, "==========")) {
		m->kind = BL_FOOTER;
	} else if (starts(s, n, "[analyse result]")) {
		m->kind = BL_OLD_HEADER;
	} else if (starts(s, n, "[analyse key]") || starts_ci(s, n, "StackKey:")) {
		m->kind = s[0] == '[' ? BL_OLD_KEY : BL_KEY;
		size_t k = s[0] == '[' ? strlen("[analyse key]") : strlen("StackKey:");
		for (m->val = s + k, m->val_len = n - k; m->val_len && blank(*m->val);)
			m->val++, m->val_len--;
	} else if (starts(s, n, "at ")) {
		m->kind = BL_FRAME;
	} else if (all_digits(s, n)) {
		m->kind = BL_NUMBER;
	} else if (item_shaped(s, n) || (in_trace && (s[0] == '.' || is_digit(s[0])))) {
		m->kind = BL_ITEM;
	} else {
		m->kind = BL_OTHER;
	}
}

bool bare_next_line(const char *text, size_t len, size_t *pos, bool in_trace,
		    struct bare_msg *m)
{
	if (*pos >= len)
		return false;
	const char *p = text + *pos, *end = text + len;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *e = nl ? nl : end;
	*pos = nl ? (size_t)(nl - text) + 1 : len;
	m->raw = p;
	m->raw_len = (size_t)(e - p);
	m->no++;
	while (e > p && (e[-1] == '\r' || blank(e[-1])))
		e--;
	while (p < e && blank(*p))
		p++;
	size_t at = message_start(p, (size_t)(e - p));
	m->prefix = at ? p : NULL;
	m->prefix_len = at;
	m->stamp_len = at ? logcat_stamp(p, at) : 0;
	p += at;
	while (p < e && blank(*p))
		p++;
	m->s = p;
	m->len = (size_t)(e - p);
	classify(m, in_trace);
	return true;
}

static const char *const bad_field[4] = {
	"depth is not a 32-bit integer",
	"method id is not a 32-bit integer",
	"count is not a 32-bit integer",
	"cost is not a 32-bit integer (or there are more than 4 fields)",
};

static const char *const bad_dots_field[4] = {
	"", /* the dots are the depth */
	"method id is not a 32-bit integer",
	"count is not a 32-bit integer",
	"cost is not a 32-bit integer",
};

/* One field s[0..n) (blanks around it allowed) as a Java int. */
static bool int32_field(const char *s, size_t n, int32_t *out)
{
	while (n && blank(*s))
		s++, n--;
	while (n && blank(s[n - 1]))
		n--;
	int64_t v;
	if (hg_parse_int64(s, n, &v) != 0 || v < INT32_MIN || v > INT32_MAX)
		return false;
	*out = (int32_t)v;
	return true;
}

int bare_parse_item(const struct bare_msg *m, hg_method_item *it, const char **why, long *col)
{
	const char *s = m->val, *end = m->val + m->val_len;
	bool comma = memchr(s, ',', m->val_len) != NULL;
	int32_t f[4] = {0};
	int i = 0;
	if (!comma) { /* print(): the dots are the depth */
		while (s < end && *s == '.')
			s++;
		f[i++] = (int32_t)(s - m->val < INT32_MAX ? s - m->val : INT32_MAX);
	}
	for (; i < 4; i++) {
		while (!comma && s < end && blank(*s))
			s++;
		const char *stop = comma ? (i < 3 ? memchr(s, ',', (size_t)(end - s)) : end) : s;
		while (!comma && stop < end && !blank(*stop))
			stop++;
		*col = (long)(s - m->raw) + 1;
		if (!stop || (!comma && stop == s)) {
			*why = comma ? "expected 4 comma-separated fields depth,id,count,cost"
				     : "expected \"id count cost\" after the depth dots";
			return HG_EPARSE;
		}
		if (!int32_field(s, (size_t)(stop - s), &f[i])) {
			*why = comma ? bad_field[i] : bad_dots_field[i];
			return HG_EPARSE;
		}
		s = comma && i < 3 ? stop + 1 : stop;
	}
	while (!comma && s < end && blank(*s))
		s++;
	if (!comma && s < end) {
		*col = (long)(s - m->raw) + 1;
		*why = "text after \"id count cost\"";
		return HG_EPARSE;
	}
	if (f[0] < 0) {
		*col = (long)(m->val - m->raw) + 1;
		*why = "depth is negative";
		return HG_EPARSE;
	}
	*it = (hg_method_item){f[0], f[1], f[2], f[3], 0};
	return 0;
}

/* Detection: Matrix's printed blocks (a header, or its StackKey / trace
 * lines) with no Java frame outside them (a Java dump that happens to hold
 * one stays a Java dump), or nothing but item and StackKey lines, at least
 * one of them an item that reads (a print() form needs a dot somewhere, or
 * a key: three numbers alone could be anything). */
bool bare_stack_detect(const char *text, size_t len)
{
	size_t head = len < HEAD ? len : HEAD, pos = 0;
	struct bare_msg m = {0};
	bool marks = false, in_block = false, in_trace = false, only_items = true;
	bool frame_outside = false, dots = false, comma = false, key = false, good = false;
	while (bare_next_line(text, head, &pos, in_trace, &m)) {
		if (pos == head && head < len)
			break; /* a line cut by the head */
		switch (m.kind) {
		case BL_HEADER: case BL_OLD_HEADER:
			marks = in_block = true;
			in_trace = m.kind == BL_OLD_HEADER;
			only_items = false;
			break;
		case BL_FOOTER: in_block = in_trace = false; only_items = false; break;
		case BL_TRACE: marks = in_block = in_trace = true; only_items = false; break;
		case BL_KEY:
			marks |= m.s[0] == '|';
			key = true;
			break;
		case BL_FRAME:
			frame_outside |= !in_block;
			only_items = false;
			break;
		case BL_ITEM: {
			hg_method_item it;
			const char *why;
			long col;
			good |= bare_parse_item(&m, &it, &why, &col) == 0;
			if (memchr(m.val, ',', m.val_len))
				comma = true;
			else
				dots |= m.val[0] == '.';
			break;
		}
		case BL_BLANK: break;
		default: only_items &= m.kind == BL_OLD_KEY || m.kind == BL_NUMBER; break;
		}
	}
	if (marks)
		return !frame_outside;
	return only_items && good && (comma || dots || key) && !(comma && dots);
}

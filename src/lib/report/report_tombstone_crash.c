/* What a tombstone says of the crash itself (private to report_tombstone.c):
 * the crashing thread's signal line, "Cause:" and "Abort message:",
 *   signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0
 *   signal 9 (SIGKILL), code 0 (SI_USER from pid 1234, uid 0), fault addr --------
 *   Cause: null pointer dereference
 *   Abort message: 'Check failed: ...'
 * its registers (pc, sp, lr and frame pointer kept as figures: where it
 * stopped), the memory map (counted, and the mapping the fault address lies
 * in kept) and the open files (counted).  Memory dumps and stack words are
 * not kept: they are bytes, not triage. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_tombstone_internal.h"

static const char *dup(struct tomb *t, const char *s, size_t n)
{
	return hg_arena_strndup(t->rep->arena, s, n);
}

/* Hex digits at s[0..n), with debuggerd's "'" between a 64-bit address's
 * halves; false when none, or over 64 bits.  *used: the bytes read. */
static bool hex_word(const char *s, size_t n, uint64_t *out, size_t *used)
{
	uint64_t v = 0;
	size_t i = 0, significant = 0;
	for (; i < n; i++) {
		if (s[i] == '\'' && i > 0)
			continue;
		int d = hg_hex_value(s[i]);
		if (d < 0)
			break;
		if ((significant || d) && ++significant > 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (i == 0)
		return false;
	*out = v;
	*used = i;
	return true;
}

/* "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0": false when
 * the line does not read so (it is then kept as written). */
static bool parse_signal(struct tomb *t, const char *s, size_t n, bool *nomem)
{
	const char *end = s + n, *p = s + 7;
	size_t used;
	if (!tb_decimal(p, (size_t)(end - p), &t->signo, &used) ||
	    !tb_starts(p + used, (size_t)(end - p - used), " ("))
		return false;
	const char *name = p + used + 2, *close = memchr(name, ')', (size_t)(end - name));
	if (!close || !tb_starts(close, (size_t)(end - close), "), code "))
		return false;
	p = close + 8;
	if (!tb_decimal(p, (size_t)(end - p), &t->code, &used) ||
	    !tb_starts(p + used, (size_t)(end - p - used), " ("))
		return false;
	const char *code = p + used + 2, *q = code;
	int depth = 1;
	for (; q < end && depth > 0; q++)
		depth += (*q == '(') - (*q == ')');
	if (depth != 0)
		return false;
	const char *code_end = q - 1, *addr = NULL;
	if (tb_starts(q, (size_t)(end - q), ", fault addr "))
		addr = q + 13;
	*nomem = !(t->sig_name = dup(t, name, (size_t)(close - name))) ||
		 !(t->code_name = dup(t, code, (size_t)(code_end - code)));
	if (addr && addr < end && *addr != '-') { /* "--------": no address */
		*nomem = *nomem || !(t->fault_addr = dup(t, addr, (size_t)(end - addr)));
		if (tb_starts(addr, (size_t)(end - addr), "0x"))
			t->has_fault = hex_word(addr + 2, (size_t)(end - addr - 2), &t->fault, &used) &&
				       addr + 2 + used == end;
	}
	return true;
}

int tomb_abort_line(struct tomb *t, const struct line *ln)
{
	const char *s = ln->s;
	size_t n = ln->len;
	bool last = n > 0 && s[n - 1] == '\'';
	if (t->abort.len + n + 1 > TOMB_MAX_ABORT) {
		t->abort_cut = true;
		n = t->abort.len + 1 < TOMB_MAX_ABORT ? TOMB_MAX_ABORT - t->abort.len - 1 : 0;
	}
	if (t->abort.len)
		hg_buf_putc(&t->abort, '\n');
	hg_buf_add(&t->abort, s, last && n == ln->len ? n - 1 : n);
	if (last)
		t->sec = SEC_THREAD;
	return t->abort.failed ? HG_ENOMEM : 0;
}

int tomb_crash_line(struct tomb *t, const struct line *ln)
{
	const char *s = ln->s;
	size_t n = ln->len;
	if (tb_starts(s, n, "signal ") && !t->has_signal && !t->signal_text) {
		bool nomem = false;
		t->has_signal = parse_signal(t, s, n, &nomem);
		if (!nomem && !t->has_signal)
			nomem = !(t->signal_text = dup(t, s, n));
		return nomem ? HG_ENOMEM : TOMB_HANDLED;
	}
	if (tb_starts(s, n, "Cause: ")) {
		if (!t->cause && !(t->cause = dup(t, s + 7, n - 7)))
			return HG_ENOMEM;
		return TOMB_HANDLED;
	}
	if (tb_starts(s, n, "Abort message: '") && !t->has_abort) {
		t->has_abort = true;
		struct line rest = *ln;
		rest.s += 16;
		rest.len -= 16;
		t->sec = SEC_ABORT; /* until the line that ends in "'" */
		return tomb_abort_line(t, &rest) ? HG_ENOMEM : TOMB_HANDLED;
	}
	return 0;
}

/* ---- registers ---- */

/* A register's name: 1 to 4 lowercase letters and digits, a letter first
 * ("x0", "r10", "ip", "pst", "rax", "eip"). */
static bool register_name(const char *s, size_t n)
{
	if (n == 0 || n > 4 || !(s[0] >= 'a' && s[0] <= 'z'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || is_digit(s[i])))
			return false;
	return true;
}

/* The registers that say where the thread was: its pc, stack pointer,
 * return address and frame pointer (the others are scratch values a
 * person reads in the tombstone itself, if at all). */
static bool said_where(const char *s, size_t n)
{
	static const char *const kept[] = {"pc", "sp", "lr", "x29", "rip", "rsp", "rbp", "eip",
					   "esp", "ebp", "ra"};
	for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
		if (strlen(kept[i]) == n && memcmp(kept[i], s, n) == 0)
			return true;
	return false;
}

static size_t word(const char *s, const char *end, const char **w)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	*w = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	return (size_t)(s - *w);
}

bool tomb_is_register_line(const struct line *ln)
{
	const char *end = ln->s + ln->len, *p = ln->s;
	size_t pairs = 0;
	while (p < end) {
		const char *name, *value;
		size_t nn = word(p, end, &name), nv = word(name + nn, end, &value);
		uint64_t v;
		size_t used;
		if (nn == 0)
			break;
		if (!register_name(name, nn) || !nv || !hex_word(value, nv, &v, &used) || used != nv)
			return false;
		pairs++;
		p = value + nv;
	}
	return pairs > 0;
}

int tomb_registers(struct tomb *t, const struct line *ln, bool keep)
{
	const char *end = ln->s + ln->len, *name;
	size_t n = word(ln->s, end, &name);
	if (!register_name(name, n) || name + n == end)
		return 0;
	for (const char *p = ln->s; p < end;) {
		const char *value;
		size_t nn = word(p, end, &name), nv = word(name + nn, end, &value);
		if (nn == 0)
			break;
		uint64_t v;
		size_t used;
		if (!register_name(name, nn) || !nv || !hex_word(value, nv, &v, &used) || used != nv) {
			tomb_odd(t, ODD_REGISTER, ln); /* the pairs before it are kept */
			break;
		}
		if (keep && t->n_registers < TOMB_MAX_REGISTERS && said_where(name, nn)) {
			char key[8], val[24];
			snprintf(key, sizeof key, "%.*s", (int)nn, name);
			snprintf(val, sizeof val, "%.*s", (int)nv, value);
			if (hg_report_add_stat(t->rep, "registers", key, val) != 0)
				return HG_ENOMEM;
			t->n_registers++;
		}
		p = value + nv;
	}
	return TOMB_HANDLED;
}

/* ---- memory map and open files ---- */

/* The name of a map line after its size: the path or "[anon:...]", without
 * debuggerd's "(BuildId: ...)" and "(load bias 0x...)". */
static const char *map_name(struct tomb *t, const char *s, const char *end)
{
	while (s < end && *s == ' ')
		s++;
	const char *cut = tb_find(s, (size_t)(end - s), " (BuildId: ");
	const char *bias = tb_find(s, (size_t)(end - s), " (load bias ");
	if (bias && (!cut || bias < cut))
		cut = bias;
	end = cut ? cut : end;
	return end > s ? dup(t, s, (size_t)(end - s)) : "(anonymous)";
}

int tomb_map_line(struct tomb *t, const struct line *ln)
{
	const char *s = ln->s, *end = s + ln->len;
	bool marked = tb_starts(s, ln->len, "--->");
	if (marked)
		s += 4;
	if (marked && tb_starts(s, (size_t)(end - s), "Fault address falls at ")) {
		/* "--->Fault address falls at 00000000'00000000 before any mapped regions" */
		const char *where = memchr(s + 23, ' ', (size_t)(end - s - 23));
		t->fault_marked = true;
		if (where && !t->fault_map && !(t->fault_map = dup(t, where + 1, (size_t)(end - where - 1))))
			return HG_ENOMEM;
		return 0;
	}
	uint64_t begin, last;
	size_t used;
	if (!hex_word(s, (size_t)(end - s), &begin, &used) || s[used] != '-')
		return 0; /* "TOTAL SIZE: ..." */
	s += used + 1;
	if (!hex_word(s, (size_t)(end - s), &last, &used))
		return 0;
	t->maps++;
	const char *w;
	s += used;
	for (int k = 0; k < 3; k++) { /* permissions, offset, size */
		size_t wn = word(s, end, &w);
		s = w + wn;
	}
	bool inside = marked || (!t->fault_marked && t->has_fault && begin <= t->fault &&
				 (t->maps_inclusive ? t->fault <= last : t->fault < last));
	if (marked)
		t->fault_marked = true;
	if (inside && !t->fault_map && !(t->fault_map = map_name(t, s, end)))
		return HG_ENOMEM;
	return 0;
}

void tomb_file_line(struct tomb *t, const struct line *ln)
{
	long v;
	if (tb_starts(ln->s, ln->len, "fd "))
		t->files++;
	else if (tb_starts(ln->s, ln->len, "(number of FDs: ") &&
		 tb_decimal(ln->s + 16, ln->len - 16, &v, NULL))
		t->files_said = v;
}

/* ---- the report's fields ---- */

static int add_text_meta(hg_report *rep, const char *key, const char *text)
{
	if (!text)
		return 0;
	hg_buf b;
	hg_buf_init(&b);
	hg_buf_json_string(&b, text, strlen(text));
	int rc = b.failed ? HG_ENOMEM : hg_report_add_meta(rep, key, b.data, text);
	hg_buf_release(&b);
	return rc;
}

static int add_number_meta(hg_report *rep, const char *key, long v)
{
	char json[24];
	snprintf(json, sizeof json, "%ld", v);
	return v < 0 ? 0 : hg_report_add_meta(rep, key, json, NULL);
}

/* "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0: null pointer
 * dereference; abort message 'Check failed'" (the message's first line)
 * into rep->reason (NULL when the tombstone says none).  0 or HG_ENOMEM. */
static int set_reason(struct tomb *t, const char *abort)
{
	hg_buf b;
	hg_buf_init(&b);
	if (t->has_signal) {
		hg_buf_printf(&b, "signal %ld (%s), code %ld (%s)", t->signo, t->sig_name, t->code,
			      t->code_name);
		if (t->fault_addr)
			hg_buf_printf(&b, ", fault addr %s", t->fault_addr);
	} else if (t->signal_text) {
		hg_buf_puts(&b, t->signal_text);
	}
	if (t->cause)
		hg_buf_printf(&b, "%s%s", b.len ? ": " : "", t->cause);
	if (abort) {
		size_t n = strcspn(abort, "\n");
		bool more = abort[n] != '\0' || n > 200;
		hg_buf_printf(&b, "%sabort message '%.*s%s'", b.len ? "; " : "", (int)(n > 200 ? 200 : n),
			      abort, more ? "..." : "");
	}
	int rc = b.failed ? HG_ENOMEM : 0;
	if (!rc && b.len && !(t->rep->reason = dup(t, b.data, b.len)))
		rc = HG_ENOMEM;
	hg_buf_release(&b);
	return rc;
}

int tomb_crash_fields(struct tomb *t)
{
	hg_report *rep = t->rep;
	const char *abort = NULL;
	if (t->has_abort && !(abort = dup(t, t->abort.data ? t->abort.data : "", t->abort.len)))
		return HG_ENOMEM;
	long tid = t->crashed >= 0 ? rep->threads.items[t->crashed].sys_tid : -1;
	int rc = set_reason(t, abort);
	if (!rc)
		rc = add_number_meta(rep, "pid", t->pid);
	if (!rc)
		rc = add_number_meta(rep, "tid", tid);
	if (!rc && t->has_signal)
		rc = add_text_meta(rep, "signal", t->sig_name);
	if (!rc && t->has_signal)
		rc = add_text_meta(rep, "signal_code", t->code_name);
	if (!rc)
		rc = add_text_meta(rep, "fault_addr", t->fault_addr);
	if (!rc)
		rc = add_text_meta(rep, "fault_map", t->fault_map);
	if (!rc)
		rc = add_text_meta(rep, "cause", t->cause);
	if (!rc)
		rc = add_text_meta(rep, "abort_message", abort);
	if (!rc && t->abort_cut)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "the abort message is longer than "
				     "%d bytes: the rest is not kept", TOMB_MAX_ABORT);
	char v[24];
	if (!rc && t->maps > 0) {
		snprintf(v, sizeof v, "%ld", t->maps);
		rc = hg_report_add_stat(rep, "tombstone", "memory maps", v);
	}
	if (!rc && (t->files > 0 || t->files_said >= 0)) {
		snprintf(v, sizeof v, "%ld", t->files_said >= 0 ? t->files_said : t->files);
		rc = hg_report_add_stat(rep, "tombstone", "open files", v);
	}
	if (!rc && t->maps_announced >= 0 && t->maps < t->maps_announced)
		rc = hg_strlist_addf(&rep->warnings, rep->arena, "the memory map announces %ld "
				     "entries but holds %ld: it looks cut", t->maps_announced, t->maps);
	return rc;
}

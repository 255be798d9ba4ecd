/* The store commands' tables for a person: columns measured from their
 * values, fitted to a width (short hashes, titles and paths cut with "…",
 * times to the minute when nothing else fits); CSV and JSON rows whole.
 * Each line goes to the caller's write function as it is made: a table
 * holds its first HG_TABLE_BUFFER_ROWS rows only, whatever the store's
 * size. */
#include <stdlib.h>
#include <string.h>

#include "hangar/render.h"

#define CUT_FLOOR 20     /* columns a cut column keeps before times shorten */
#define STORE_CHECKS 64  /* hashes of a table told apart from the whole store */
#define ELLIPSIS "…"
#define BELOW_PAD "  " /* the indent of a column on a line of its own */
#define BELOW_INDENT 2

struct column {
	char *name;
	hg_cell_fit fit;
	size_t width;        /* laid out */
	char **sorted;       /* HASH, DIGEST: the buffered values, sorted */
	size_t n_sorted;
};

struct hg_table {
	hg_table_write write;
	void *user;
	hg_rows format;
	int width;
	hg_store *store;
	size_t n_cols;
	struct column *cols;
	/* Buffered rows: n_cols values each (NULL: none); a note is a row
	 * whose first value is its text and note[r] set. */
	char **cells;
	size_t *digits;      /* HASH: the store's digits for a value (0: unchecked) */
	bool *note;
	size_t n_rows, cap;
	bool laid_out;       /* widths measured: rows print as they come */
	int time_level;      /* 0 whole, 1 to the minute, 2 the day */
	bool below;          /* the last column goes on a line of its own */
	size_t checks;       /* store lookups made */
	bool failed;
};

static size_t cols_of(const char *s)
{
	return s ? hg_visible_cols(s, strcspn(s, "\r\n")) : 0;
}

/* Hands what line holds to the table's writer. */
static void emit(const hg_table *t, const hg_buf *line)
{
	if (!line->failed && line->len)
		t->write(t->user, line->data, line->len);
}

static void emit_text(const hg_table *t, const char *s)
{
	t->write(t->user, s, strlen(s));
}

/* The short form of a cluster's hash: HG_TABLE_HASH_DIGITS digits, more
 * when another cluster of the store starts with them (the same for a
 * cluster in every table, and always a prefix `show` and `reports` take).
 * *len gets the digits; 0, or the store's error code.  Each call reads the
 * whole clusters table (hg_store_resolve cannot use its index): a table
 * asks it for its first STORE_CHECKS rows only. */
static int short_hash(hg_store *store, const char *hash, size_t *len)
{
	char prefix[33];
	size_t n = strlen(hash), k = HG_TABLE_HASH_DIGITS;
	for (; k < n && k < sizeof prefix - 1; k++) {
		memcpy(prefix, hash, k);
		prefix[k] = '\0';
		char found[33];
		int rc = hg_store_resolve(store, prefix, found);
		if (rc == 0 || rc == HG_EINVAL) /* unique, or not the store's */
			break;
		if (rc != HG_EPARSE)
			return rc;
	}
	*len = k < n ? k : n;
	return 0;
}

/* The first unit (a character, or a byte shown as an escape) of s[0..len). */
static size_t unit_len(const char *s, size_t len)
{
	size_t u = hg_utf8_len(s, len);
	return u ? u : 1;
}

void hg_render_fit_text(hg_buf *out, const char *s, size_t len, int avail, bool keep_end)
{
	size_t cols = hg_visible_cols(s, len), e = cols_of(ELLIPSIS);
	if (avail <= 0 || cols <= (size_t)avail) {
		hg_buf_visible(out, s, len);
		return;
	}
	size_t room = (size_t)avail > e ? (size_t)avail - e : 0;
	if (!keep_end) {
		size_t n = hg_visible_prefix(s, len, room, NULL);
		hg_buf_visible(out, s, n);
		hg_buf_puts(out, ELLIPSIS);
		return;
	}
	/* Skip the start that leaves at most room columns: whole units. */
	size_t excess = cols - room, taken = 0;
	size_t skip = hg_visible_prefix(s, len, excess, &taken);
	while (taken < excess && skip < len) {
		size_t u = unit_len(s + skip, len - skip);
		taken += hg_visible_cols(s + skip, u);
		skip += u;
	}
	hg_buf_puts(out, ELLIPSIS);
	hg_buf_visible(out, s + skip, len - skip);
}

hg_table *hg_table_create(hg_rows f, int width, hg_store *store, hg_table_write write, void *user)
{
	hg_table *t = calloc(1, sizeof *t);
	if (t)
		*t = (hg_table){.write = write, .user = user, .format = f, .width = width,
				.store = store};
	return t;
}

static void free_rows(hg_table *t)
{
	for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->digits);
	free(t->note);
	t->cells = NULL;
	t->digits = NULL;
	t->note = NULL;
	t->n_rows = t->cap = 0;
}

static void free_columns(hg_table *t)
{
	for (size_t i = 0; i < t->n_cols; i++) {
		free(t->cols[i].name);
		free(t->cols[i].sorted); /* (the values it points at are the rows') */
	}
	free(t->cols);
	t->cols = NULL;
	t->n_cols = 0;
}

/* ---- short hashes ---- */

static size_t common_prefix(const char *a, const char *b)
{
	size_t i = 0;
	while (a[i] && a[i] == b[i])
		i++;
	return i;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The digits of value (a HASH or DIGEST of column c) shown: the short
 * length, more when another of the table's rows shares them (its
 * neighbours in sorted order share the most); `store` is what the store
 * said (0: it was not asked). */
static size_t hash_digits(const struct column *c, const char *value, size_t store)
{
	size_t n = strlen(value), need = HG_TABLE_HASH_DIGITS > store ? HG_TABLE_HASH_DIGITS : store;
	size_t lo = 0, hi = c->n_sorted;
	while (lo < hi) { /* the first one not before value */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(c->sorted[mid], value) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t next = lo;
	while (next < c->n_sorted && !strcmp(c->sorted[next], value))
		next++;
	const char *near[2] = {lo ? c->sorted[lo - 1] : NULL,
			       next < c->n_sorted ? c->sorted[next] : NULL};
	for (int k = 0; k < 2; k++)
		if (near[k] && common_prefix(near[k], value) + 1 > need)
			need = common_prefix(near[k], value) + 1;
	return need < n ? need : n;
}

/* What the store says of a cluster hash, for the first STORE_CHECKS. */
static size_t store_digits(hg_table *t, const char *value)
{
	size_t len = 0;
	if (!t->store || !value || t->checks >= STORE_CHECKS)
		return 0;
	t->checks++;
	return short_hash(t->store, value, &len) == 0 ? len : 0;
}

static bool sort_hashes(hg_table *t)
{
	for (size_t c = 0; c < t->n_cols; c++) {
		struct column *col = &t->cols[c];
		if (col->fit != HG_CELL_HASH && col->fit != HG_CELL_DIGEST)
			continue;
		col->sorted = t->n_rows ? malloc(t->n_rows * sizeof *col->sorted) : NULL;
		if (t->n_rows && !col->sorted)
			return false;
		for (size_t r = 0; r < t->n_rows; r++)
			if (!t->note[r] && t->cells[r * t->n_cols + c])
				col->sorted[col->n_sorted++] = t->cells[r * t->n_cols + c];
		qsort(col->sorted, col->n_sorted, sizeof *col->sorted, by_text);
	}
	return true;
}

/* ---- laying out ---- */

/* A time as the level shows it: whole, "2024-04-25 08:00", "2024-04-25";
 * anything that is not an ISO time whole.  Into buf (17 bytes or more). */
static const char *time_form(const char *v, int level, char *buf)
{
	if (!level || !v || strlen(v) < 16 || v[4] != '-' || v[7] != '-' || v[10] != 'T' ||
	    v[13] != ':')
		return v;
	memcpy(buf, v, 16);
	buf[10] = ' ';
	buf[level == 1 ? 16 : 10] = '\0';
	return buf;
}

/* Value v of column col as the table shows it (whole: fitting it to the
 * column comes after); store: the store's digits for a hash.  buf: 33
 * bytes. */
static const char *shown(const hg_table *t, const struct column *col, const char *v,
			 size_t store, char *buf)
{
	if (!v)
		return "";
	if (col->fit == HG_CELL_TIME)
		return time_form(v, t->time_level, buf);
	if (col->fit == HG_CELL_HASH || col->fit == HG_CELL_DIGEST) {
		size_t n = hash_digits(col, v, store);
		if (n > 32)
			return v;
		memcpy(buf, v, n);
		buf[n] = '\0';
		return buf;
	}
	return v;
}

static bool cut(hg_cell_fit f)
{
	return f == HG_CELL_CUT || f == HG_CELL_PATH;
}

/* Each column's width from the buffered values (and the header). */
static void measure(hg_table *t)
{
	for (size_t c = 0; c < t->n_cols; c++) {
		struct column *col = &t->cols[c];
		col->width = cols_of(col->name);
		for (size_t r = 0; r < t->n_rows; r++) {
			if (t->note[r])
				continue;
			char buf[33];
			size_t i = r * t->n_cols + c;
			size_t w = cols_of(shown(t, col, t->cells[i], t->digits[i], buf));
			if (w > col->width)
				col->width = w;
		}
	}
}

/* Shares room among the cut columns of [0, n): the narrowest whole, the
 * rest evenly; at least one column each. */
static void share(hg_table *t, size_t n, size_t room)
{
	bool done[64] = {false};
	size_t n_cut = 0;
	for (size_t c = 0; c < n; c++)
		n_cut += cut(t->cols[c].fit);
	for (size_t left = n_cut; left > 0; left--) {
		size_t best = n;
		for (size_t c = 0; c < n; c++)
			if (cut(t->cols[c].fit) && !done[c] &&
			    (best == n || t->cols[c].width < t->cols[best].width))
				best = c;
		size_t w = t->cols[best].width, even = room / left;
		w = w < even ? w : even;
		t->cols[best].width = w ? w : 1;
		room -= w;
		done[best] = true;
	}
}

/* Fits columns [0, n) on one line of t->width: the cut columns share what
 * the others leave, times shortened first when that is less than
 * CUT_FLOOR each; false when even then it is. */
static bool lay_out(hg_table *t, size_t n)
{
	for (t->time_level = 0;; t->time_level++) {
		measure(t);
		size_t fixed = n - 1, want = 0; /* the spaces between */
		bool times = false;
		for (size_t c = 0; c < n; c++) {
			const struct column *col = &t->cols[c];
			times |= col->fit == HG_CELL_TIME;
			if (cut(col->fit))
				want += col->width < CUT_FLOOR ? col->width : CUT_FLOOR;
			else
				fixed += col->width;
		}
		bool fits = fixed + want <= (size_t)t->width;
		if (fits || !times || t->time_level == 2) {
			share(t, n, (size_t)t->width > fixed ? (size_t)t->width - fixed : 0);
			return fits;
		}
	}
}

/* The widths, measured from the values, fitted to t->width: on one line
 * when the cut columns keep CUT_FLOOR columns each; else the last column,
 * when it is one to cut (a title, a reason), goes on a line of its own
 * under its row, indented, and the others fit the width. */
static void fit(hg_table *t)
{
	measure(t);
	if (t->width <= 0 || lay_out(t, t->n_cols))
		return;
	size_t last = t->n_cols - 1;
	if (last > 0 && cut(t->cols[last].fit)) {
		t->below = true;
		lay_out(t, last);
		t->cols[last].width = (size_t)t->width > BELOW_INDENT ? t->width - BELOW_INDENT : 1;
	}
}

/* Column c's cell of a line: v fitted to its width, padded but for the
 * line's last. */
static void put_cell(hg_buf *line, const hg_table *t, const struct column *col, const char *v,
		     bool last)
{
	size_t len = strcspn(v, "\r\n"), w = hg_visible_cols(v, len);
	size_t pad = col->width > w ? col->width - w : 0;
	if (t->width > 0 && cut(col->fit) && w > col->width) {
		hg_render_fit_text(line, v, len, (int)col->width, col->fit == HG_CELL_PATH);
		return;
	}
	for (; col->fit == HG_CELL_NUMBER && pad > 0; pad--) /* right-aligned */
		hg_buf_putc(line, ' ');
	hg_buf_visible(line, v, len);
	for (; pad > 0 && !last; pad--)
		hg_buf_putc(line, ' ');
}

/* One row of the table (values NULL: the header): the cells fitted to
 * their columns, a space between, no blanks at a line's end; the last
 * cell under the others when it goes below. */
static void print_line(hg_table *t, const char *const *values, const size_t *digits)
{
	hg_buf line;
	hg_buf_init(&line);
	size_t n = t->n_cols - t->below;
	for (size_t c = 0; c < t->n_cols; c++) {
		const struct column *col = &t->cols[c];
		char buf[33];
		const char *v = values ? shown(t, col, values[c], digits[c], buf) : col->name;
		if (c == n) {
			if (!*v)
				break;
			hg_buf_puts(&line, "\n" BELOW_PAD);
		} else if (c) {
			hg_buf_putc(&line, ' ');
		}
		put_cell(&line, t, col, v, c + 1 >= n);
		while (c + 1 == n && line.len && line.data[line.len - 1] == ' ')
			line.len--;
	}
	hg_buf_putc(&line, '\n');
	emit(t, &line);
	hg_buf_release(&line);
}

void hg_table_flush(hg_table *t)
{
	if (!t || t->format != HG_ROWS_TABLE || t->laid_out || !t->n_cols)
		return;
	if (!sort_hashes(t)) {
		t->failed = true;
		return;
	}
	fit(t);
	bool header = false;
	for (size_t r = 0; r < t->n_rows; r++) {
		if (t->note[r]) {
			emit_text(t, t->cells[r * t->n_cols]);
			continue;
		}
		if (!header)
			print_line(t, NULL, NULL);
		header = true;
		size_t at = r * t->n_cols;
		print_line(t, (const char *const *)t->cells + at, t->digits + at);
	}
	t->laid_out = true;
}

static bool set_columns(hg_table *t, const hg_table_cell *cells, size_t n)
{
	t->cols = calloc(n, sizeof *t->cols);
	if (!t->cols)
		return false;
	t->n_cols = n;
	for (size_t c = 0; c < n; c++) {
		t->cols[c].fit = cells[c].fit;
		if (!(t->cols[c].name = strdup(cells[c].column)))
			return false;
	}
	return true;
}

/* Room for one more buffered row. */
static bool grow(hg_table *t)
{
	if (t->n_rows < t->cap)
		return true;
	size_t cap = t->cap ? 2 * t->cap : 32, n = t->n_cols;
	char **cells = realloc(t->cells, cap * n * sizeof *cells);
	if (cells)
		t->cells = cells;
	size_t *digits = realloc(t->digits, cap * n * sizeof *digits);
	if (digits)
		t->digits = digits;
	bool *note = realloc(t->note, cap * sizeof *note);
	if (note)
		t->note = note;
	if (!cells || !digits || !note)
		return false;
	t->cap = cap;
	return true;
}

/* A CSV or JSON row, as print_row prints it. */
static void print_data(hg_table *t, const hg_table_cell *cells, size_t n, bool first)
{
	hg_row_cell row[64];
	for (size_t c = 0; c < n; c++)
		row[c] = (hg_row_cell){cells[c].column, cells[c].value, 0, cells[c].json};
	hg_buf b;
	hg_buf_init(&b);
	if (first && t->format == HG_ROWS_CSV)
		hg_render_row_header(&b, t->format, row, n);
	hg_render_row(&b, t->format, row, n);
	emit(t, &b);
	hg_buf_release(&b);
}

void hg_table_row(hg_table *t, const hg_table_cell *cells, size_t n)
{
	if (!t || t->failed || n > 64)
		return;
	bool first = !t->n_cols;
	if (first && !set_columns(t, cells, n)) {
		t->failed = true;
		return;
	}
	if (t->format != HG_ROWS_TABLE) {
		print_data(t, cells, n, first);
		return;
	}
	if (n != t->n_cols) {
		t->failed = true; /* not the table's columns */
		return;
	}
	char *values[64];
	size_t digits[64];
	for (size_t c = 0; c < n; c++) {
		values[c] = (char *)cells[c].value;
		digits[c] = cells[c].fit == HG_CELL_HASH ? store_digits(t, cells[c].value) : 0;
	}
	if (t->laid_out) {
		print_line(t, (const char *const *)values, digits);
		return;
	}
	if (!grow(t)) {
		t->failed = true;
		return;
	}
	size_t at = t->n_rows * n;
	t->note[t->n_rows++] = false;
	for (size_t c = 0; c < n; c++) {
		t->cells[at + c] = values[c] ? strdup(values[c]) : NULL;
		t->digits[at + c] = digits[c];
		t->failed |= values[c] && !t->cells[at + c];
	}
	if (t->n_rows == HG_TABLE_BUFFER_ROWS)
		hg_table_flush(t);
}

void hg_table_note(hg_table *t, const char *text)
{
	if (!t || t->failed || t->format != HG_ROWS_TABLE)
		return;
	if (t->laid_out || !t->n_cols) {
		emit_text(t, text);
		return;
	}
	if (!grow(t)) {
		t->failed = true;
		return;
	}
	size_t at = t->n_rows * t->n_cols;
	t->note[t->n_rows++] = true;
	for (size_t c = 0; c < t->n_cols; c++) {
		t->cells[at + c] = c ? NULL : strdup(text);
		t->digits[at + c] = 0;
	}
	t->failed |= !t->cells[at];
}

void hg_table_destroy(hg_table *t)
{
	if (!t)
		return;
	hg_table_flush(t);
	free_rows(t);
	free_columns(t);
	free(t);
}

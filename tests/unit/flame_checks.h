/* What every flame must satisfy, and each writer's output checked
 * (private to test_flame.c and test_flame_callers.c, included once by
 * each): widths settled, folded lines that add up and split back, Chrome
 * events that parse with the library's JSON and nest, speedscope events in
 * time order and in pairs. */
#ifndef HANGAR_TEST_FLAME_CHECKS_H
#define HANGAR_TEST_FLAME_CHECKS_H

/* Widths settled: each node as wide as its self and its children. */
static void check_widths(const hg_flame *f)
{
	int64_t *kids = calloc(f->n + 1, sizeof *kids);
	int64_t roots = 0;
	assert_non_null(kids);
	for (size_t i = 0; i < f->n; i++) {
		const hg_flame_node *nd = &f->nodes[i];
		assert_true(nd->parent == HG_FLAME_NO_PARENT || nd->parent < i);
		assert_true(nd->self >= 0 && nd->total >= nd->self);
		assert_non_null(nd->name);
		if (nd->parent == HG_FLAME_NO_PARENT)
			roots += nd->total;
		else
			kids[nd->parent] += nd->total;
	}
	for (size_t i = 0; i < f->n; i++)
		assert_int_equal(f->nodes[i].total, f->nodes[i].self + kids[i]);
	assert_int_equal(f->total, roots);
	if (f->key >= 0) {
		assert_true((size_t)f->key < f->n);
		for (size_t i = (size_t)f->key; i != HG_FLAME_NO_PARENT; i = f->nodes[i].parent)
			assert_true(f->nodes[i].key);
	}
	free(kids);
}

static size_t node_depth(const hg_flame *f, size_t i)
{
	size_t d = 0;
	for (; i != HG_FLAME_NO_PARENT; i = f->nodes[i].parent)
		d++;
	return d;
}

/* Folded: one line per node with a self weight, in a clean UTF-8 text
 * whose weights add up to the total; the predicted size is the size. */
static void check_folded(const hg_flame *f)
{
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_folded(f, &out);
	assert_false(out.failed);
	assert_int_equal(out.len, hg_flame_folded_size(f));
	size_t lines = 0, with_self = 0;
	int64_t sum = 0;
	for (size_t i = 0; i < f->n; i++)
		with_self += f->nodes[i].self > 0;
	for (size_t at = 0; at < out.len;) {
		const char *line = out.data + at;
		const char *nl = memchr(line, '\n', out.len - at);
		assert_non_null(nl);
		const char *sp = nl;
		while (sp > line && sp[-1] != ' ')
			sp--;
		assert_true(sp > line + 1); /* a frame, a space, the weight */
		int64_t w = 0;
		for (const char *p = sp; p < nl; p++) {
			assert_true(*p >= '0' && *p <= '9');
			w = w * 10 + (*p - '0');
		}
		assert_true(w > 0);
		sum += w;
		for (const char *p = line; p < sp - 1;) {
			unsigned char c = (unsigned char)*p;
			assert_true(c >= 0x20 && c != 0x7f);
			size_t len = c < 0x80 ? 1 : hg_utf8_len(p, (size_t)(sp - 1 - p));
			assert_true(len > 0);
			p += len;
		}
		lines++;
		at = (size_t)(nl - out.data) + 1;
	}
	assert_int_equal(lines, with_self);
	assert_int_equal(sum, f->total);
	hg_buf_release(&out);
}

/* The frames per folded line, against the depths of the nodes with a self
 * weight (as multisets: lines come in pre-order). */
static void check_folded_depths(const hg_flame *f)
{
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_folded(f, &out);
	size_t max = f->n + 2;
	size_t *want = calloc(max, sizeof *want), *got = calloc(max, sizeof *got);
	assert_non_null(want);
	assert_non_null(got);
	for (size_t i = 0; i < f->n; i++)
		if (f->nodes[i].self > 0)
			want[node_depth(f, i)]++;
	size_t frames = 1;
	for (size_t i = 0; i < out.len; i++) {
		if (out.data[i] == ';')
			frames++;
		if (out.data[i] == '\n') {
			assert_true(frames < max);
			got[frames]++;
			frames = 1;
		}
	}
	for (size_t d = 0; d < max; d++)
		assert_int_equal(got[d], want[d]);
	free(want);
	free(got);
	hg_buf_release(&out);
}

static int64_t num(const hg_json_doc *doc, const hg_json *obj, const char *key)
{
	const hg_json *v = hg_json_get(obj, key);
	assert_non_null(v);
	int64_t x = 0;
	assert_int_equal(hg_json_int64(doc, v, &x), 0);
	return x;
}

static hg_json_doc *parse_json(const hg_buf *out)
{
	assert_false(out->failed);
	hg_json_doc *doc = NULL;
	size_t end = 0;
	assert_int_equal(hg_json_parse(out->data, out->len, &doc, &end), 0);
	while (end < out->len && (out->data[end] == '\n' || out->data[end] == ' '))
		end++;
	assert_int_equal(end, out->len);
	return doc;
}

struct span {
	int64_t ts, end, tid;
};

/* Chrome: the JSON parses; one X event per node, each inside the last
 * event of its thread that contains it, never overlapping one partly. */
static void check_chrome(const hg_flame *f)
{
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_chrome(f, &out);
	hg_json_doc *doc = parse_json(&out);
	const hg_json *root = hg_json_root(doc);
	assert_string_equal(hg_json_string(hg_json_get(root, "displayTimeUnit")), "ms");
	const hg_json *events = hg_json_get(root, "traceEvents");
	assert_int_equal(hg_json_type(events), HG_JSON_ARRAY);
	struct span *open = calloc(f->n + 1, sizeof *open);
	size_t depth = 0, complete = 0, named = 0;
	int64_t cost_sum_roots = 0;
	for (const hg_json *e = hg_json_first(events); e; e = hg_json_next(e)) {
		const char *ph = hg_json_string(hg_json_get(e, "ph"));
		assert_non_null(ph);
		assert_int_equal(num(doc, e, "pid"), 1);
		if (!strcmp(ph, "M")) {
			named++;
			continue;
		}
		assert_string_equal(ph, "X");
		assert_non_null(hg_json_string(hg_json_get(e, "name")));
		assert_non_null(hg_json_string(hg_json_get(e, "cat")));
		struct span s = {num(doc, e, "ts"), 0, num(doc, e, "tid")};
		int64_t dur = num(doc, e, "dur");
		assert_true(s.ts >= 0 && dur >= 0);
		s.end = s.ts + dur;
		const hg_json *args = hg_json_get(e, "args");
		assert_non_null(hg_json_get(args, "calls"));
		assert_non_null(hg_json_get(args, "reports"));
		assert_int_equal(hg_json_type(hg_json_get(args, "stack_key")), HG_JSON_BOOL);
		while (depth > 0 && !(open[depth - 1].tid == s.tid && open[depth - 1].ts <= s.ts &&
				      s.end <= open[depth - 1].end)) {
			depth--;
			if (open[depth].tid == s.tid)
				assert_true(s.ts >= open[depth].end); /* no partial overlap */
		}
		if (depth == 0)
			cost_sum_roots += dur;
		open[depth++] = s;
		complete++;
	}
	assert_int_equal(complete, f->n);
	assert_true(named >= 2);
	if (f->unit == HG_FLAME_MS)
		assert_true(cost_sum_roots <= f->total * 1000);
	free(open);
	hg_json_doc_destroy(doc);
	hg_buf_release(&out);
}

/* speedscope: evented events in time order, opened and closed in pairs
 * over the frames; sampled weights add up to the total. */
static void check_speedscope(const hg_flame *f)
{
	hg_buf out;
	hg_buf_init(&out);
	hg_flame_write_speedscope(f, &out);
	hg_json_doc *doc = parse_json(&out);
	const hg_json *root = hg_json_root(doc);
	assert_string_equal(hg_json_string(hg_json_get(root, "$schema")),
			    "https://www.speedscope.app/file-format-schema.json");
	size_t frames = hg_json_count(hg_json_get(hg_json_get(root, "shared"), "frames"));
	assert_true(frames <= f->n);
	const hg_json *p = hg_json_first(hg_json_get(root, "profiles"));
	assert_non_null(p);
	const char *name = hg_json_string(hg_json_get(p, "name"));
	assert_non_null(name);
	if (f->key >= 0)
		assert_non_null(strstr(name, " | StackKey: "));
	const char *type = hg_json_string(hg_json_get(p, "type"));
	if (f->unit == HG_FLAME_MS) {
		assert_string_equal(type, "evented");
		int64_t *open = calloc(f->n + 1, sizeof *open), last = 0;
		size_t depth = 0, n = 0;
		const hg_json *events = hg_json_get(p, "events");
		for (const hg_json *e = hg_json_first(events); e; e = hg_json_next(e)) {
			int64_t at = num(doc, e, "at"), frame = num(doc, e, "frame");
			assert_true(at >= last);
			assert_true(frame >= 0 && (size_t)frame < frames);
			last = at;
			const char *t = hg_json_string(hg_json_get(e, "type"));
			if (!strcmp(t, "O")) {
				open[depth++] = frame;
				n++;
			} else {
				assert_string_equal(t, "C");
				assert_true(depth > 0);
				assert_int_equal(open[--depth], frame);
			}
		}
		assert_int_equal(depth, 0);
		assert_int_equal(n, f->n);
		assert_true(num(doc, p, "endValue") >= last);
		free(open);
	} else {
		assert_string_equal(type, "sampled");
		const hg_json *samples = hg_json_get(p, "samples"), *weights = hg_json_get(p, "weights");
		assert_int_equal(hg_json_count(samples), hg_json_count(weights));
		int64_t sum = 0;
		for (const hg_json *w = hg_json_first(weights); w; w = hg_json_next(w)) {
			int64_t x = 0;
			assert_int_equal(hg_json_int64(doc, w, &x), 0);
			sum += x;
		}
		assert_int_equal(sum, f->total);
	}
	hg_json_doc_destroy(doc);
	hg_buf_release(&out);
}

static void check_all(const hg_flame *f)
{
	check_widths(f);
	check_folded(f);
	check_folded_depths(f);
	check_chrome(f);
	check_speedscope(f);
}

#endif

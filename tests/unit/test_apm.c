/* The custom APM reader (report_apm.c, report_apm_stack.c), on the
 * article's own report and stacks (testdata/seeds/apm/, seed 000): the
 * kinds and thresholds, the names (appName as the app, system as the OS
 * version), stack_file as a URL found by its last segment (in stack_dir,
 * beside the report, fetched beside it through hg_ctx.fetch_beside), a
 * stack file holding the main thread's frames and the method stack in
 * either order, times without a zone read in hg_ctx.zone and said once,
 * and bad input: hostile URLs, missing and cut files, wrong types, caps.
 * argv[1] is the testdata/ folder. */
#include <sys/stat.h>
#include <unistd.h>

#include "hangar/timezone.h"

#include "report_fixture.h"

static const char *testdata = "testdata";
static char tmp[256]; /* this run's folder of generated stack files */

static void put_file(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", tmp, name);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
	fclose(fp);
}

/* One sample of testdata/seeds/apm/ read as its path (its folder is beside it). */
static const hg_report *read_sample(struct fixture *f, const char *name)
{
	char dir[512], path[1024];
	snprintf(dir, sizeof dir, "%s/seeds/apm", testdata);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	size_t len;
	char *text = load_file(dir, name, &len);
	reset(f);
	assert_int_equal(hg_reports_read(&f->ctx, path, text, len, sink, f), 0);
	free(text);
	assert_int_equal(f->delivered, 1);
	if (f->rep[0]->error)
		fail_msg("%s: %s", name, f->rep[0]->error);
	return f->rep[0];
}

static void assert_frame(const hg_thread *t, size_t i, const char *cls, const char *method,
			 long line)
{
	assert_true(i < t->n_frames);
	assert_string_equal(t->frames[i].cls, cls);
	assert_string_equal(t->frames[i].method, method);
	assert_int_equal(t->frames[i].line, line);
}

static bool has_warning(const hg_report *r, const char *needle)
{
	for (size_t i = 0; i < r->warnings.len; i++)
		if (strstr(r->warnings.items[i], needle))
			return true;
	return false;
}

static void assert_warning(const hg_report *r, const char *needle)
{
	if (!has_warning(r, needle)) {
		for (size_t i = 0; i < r->warnings.len; i++)
			fprintf(stderr, "warning: %s\n", r->warnings.items[i]);
		fail_msg("no warning holds \"%s\"", needle);
	}
}

/* ---- the article's reports ---- */

/* The LAG report as the article prints it: stack_file "http:" then three stars and "TYy...txt"
 * (host and path masked with stars), the main thread's frames as the web
 * page spaced them ("Thread.java: 356 )", "$onCreate$ 3 .onClick"). */
static void test_article_lag(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = read_sample(f, "lag.json");
	assert_int_equal(r->kind, HG_KIND_LAG);
	assert_int_equal(r->threshold, 2000);
	assert_string_equal(r->detail, "LAG");
	assert_string_equal(r->process, "SweetWords");
	assert_string_equal(r->app_version, "5.2.00");
	assert_string_equal(r->os_version, "29");
	assert_string_equal(r->device, "Xiaomi Mi 10");
	assert_string_equal(r->scene, "com.gmlive.soulmatch.TestActivity");
	assert_int_equal(r->foreground, 1);
	assert_string_equal(r->time, "2021-07-27T15:57:15.000Z"); /* no zone: UTC */
	assert_string_equal(r->time_written, "2021-07-27 15:57:15");
	assert_false(r->has_method_stack);
	assert_int_equal(r->threads.n, 1);
	const hg_thread *t = &r->threads.items[0];
	assert_int_equal(r->threads.blamed, 0);
	assert_true(t->flags & HG_THREAD_MAIN);
	assert_int_equal(t->n_frames, 16);
	assert_frame(t, 0, "java.lang.Thread", "sleep", 356);
	assert_frame(t, 5, "com.gmlive.soulmatch.TestActivity$onCreate$3", "onClick", 25);
	assert_frame(t, 9, "android.view.View", "access$3500", 822);
	assert_string_equal(t->frames[15].file, "Native Method");
	assert_int_equal(r->warnings.len, 0);
	/* userId and the rest are metadata, as written */
	bool user = false;
	for (size_t i = 0; i < r->meta_len; i++)
		user |= !strcmp(r->meta[i].key, "userId") && !strcmp(r->meta[i].json, "842894");
	assert_true(user);
}

/* An ANR report: one stack file with the main thread's frames, then the
 * method costs as the article prints them ("0 , 1048574 , 1 , 5003 // ...",
 * "<-- stackKey"); the StackKey is the article's, ObjectBox's query. */
static void test_article_anr_both_stacks(void **state)
{
	struct fixture *f = *state;
	const hg_report *r = read_sample(f, "anr.json");
	assert_int_equal(r->kind, HG_KIND_ANR);
	assert_int_equal(r->threshold, 5000);
	assert_true(r->has_method_stack);
	assert_int_equal(r->full.len, 30);
	assert_item(&r->full, 0, 0, 1048574, 1, 5003);
	assert_item(&r->full, 29, 10, 52899, 1, 5003);
	assert_true(r->key_index >= 0);
	assert_string_equal(hg_report_stack_key_text(r), "52899|");
	assert_int_equal(r->trimmed.items[r->key_index].depth, 10);
	assert_int_equal(r->threads.n, 1);
	assert_int_equal(r->threads.items[0].n_frames, 20);
	assert_frame(&r->threads.items[0], 2, "com.gmlive.soulmatch.objectbox.impl.ObjectboxState",
		     "query", 58);
	assert_int_equal(r->warnings.len, 0);

	r = read_sample(f, "slow-method.json");
	assert_int_equal(r->kind, HG_KIND_SLOW_METHOD);
	assert_int_equal(r->threshold, 700);
	assert_int_equal(r->threads.n, 0);
	assert_string_equal(hg_report_stack_key_text(r), "52899|");
}

/* Both parts in either order, with or without a separator, with a
 * StackKey line; and as Matrix's inline fields. */
static void test_both_parts_any_order(void **state)
{
	struct fixture *f = *state;
	f->ctx.stack_dir = tmp;
	static const char *const frames = "java.lang.Thread.sleep(Native Method)\n"
					  "com.example.A.run(A.java:12)\n";
	static const char *const files[][2] = {
		{"m-then-f.txt", "0,1048574,1,900\n1,7,1,899\n2,8,1,880\n|\n"
				 "java.lang.Thread.sleep(Native Method)\ncom.example.A.run(A.java:12)\n"},
		{"f-then-m.txt", "java.lang.Thread.sleep(Native Method)\ncom.example.A.run(A.java:12)\n"
				 "0,1048574,1,900\n1,7,1,899\n2,8,1,880"},
		{"headed.txt", "// main thread\n\tat java.lang.Thread.sleep(Native Method)\n"
			       "\tat com.example.A.run(A.java:12)\n\n----\n"
			       "# depth,id,count,cost\n0,1048574,1,900\n1,7,1,899\n2,8,1,880\n"
			       "StackKey: 8|\n"},
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		put_file(files[i][0], files[i][1]);
		char json[256];
		snprintf(json, sizeof json, "{\"reportType\":\"ANR\",\"stack_file\":"
			 "\"https://cdn.example.com/a/%s\"}", files[i][0]);
		const hg_report *r = one_good(f, json);
		assert_true(r->has_method_stack);
		assert_int_equal(r->full.len, 3);
		assert_string_equal(hg_report_stack_key_text(r), "8|");
		assert_int_equal(r->threads.n, 1);
		assert_int_equal(r->threads.items[0].n_frames, 2);
		assert_int_equal(r->warnings.len, 0);
	}
	/* A StackKey line that disagrees is said. */
	put_file("key.txt", "0,1048574,1,900\n1,7,1,899\nStackKey: 99|\n");
	const hg_report *r = one_good(f, "{\"reportType\":\"ANR\",\"stack_file\":\"key.txt\"}");
	assert_warning(r, "the device's StackKey is \"99|\" but the stack gives \"7|\"");
	/* Inline, as Matrix's JSON carries them, with no stack_file. */
	char json[512];
	snprintf(json, sizeof json, "{\"reportType\":\"ANR\",\"stack\":\"0,1048574,1,900\\n1,7,1,899"
		 "\\n2,8,1,880\\n\",\"threadStack\":\"com.example.A.run(A.java:12)\\n\"}");
	r = one_good(f, json);
	assert_int_equal(r->full.len, 3);
	assert_int_equal(r->threads.n, 1);
	/* A file whose frames the report has already: the first kept, said. */
	put_file("frames.txt", frames);
	snprintf(json, sizeof json, "{\"reportType\":\"LAG\",\"threadStack\":\"a.B.c(B.java:1)\\n\","
		 "\"stack_file\":\"frames.txt\"}");
	r = one_good(f, json);
	assert_int_equal(r->threads.n, 1);
	assert_int_equal(r->threads.items[0].n_frames, 1);
	assert_warning(r, "stack_file: its Java frames are left out: the report has them already");
	f->ctx.stack_dir = NULL;
}

/* ---- where the stack file is ---- */

/* A URL's last path segment (decoded, no query or fragment), in stack_dir. */
static void test_url_segment(void **state)
{
	struct fixture *f = *state;
	f->ctx.stack_dir = tmp;
	put_file("a b.txt", "com.example.A.run(A.java:12)\n");
	static const char *const good[] = {
		"https://cdn.example.com/apm/2021/a%20b.txt?Expires=1&Signature=x%2By#top",
		"s3://bucket/apm/a%20b.txt", "http://***a b.txt", "oss://b/a b.txt#x",
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		char json[256];
		snprintf(json, sizeof json, "{\"reportType\":\"LAG\",\"stack_file\":\"%s\"}", good[i]);
		const hg_report *r = one_good(f, json);
		assert_int_equal(r->threads.n, 1);
	}
	static const char *const bad[][2] = {
		{"http://cdn.example.com/apm/", "names no file (nothing after its last '/')"},
		{"http://cdn.example.com", "names no file (no path after its host)"},
		{"http://cdn.example.com/?x=/a.txt", "names no file"},
		{"http://h/p/%2E%2E", "has \".\" or \"..\", a folder: refused"},
		{"http://h/p/..", "a folder: refused"},
		{"http://h/p/..%2Fetc%2Fpasswd", "has a '/' once decoded"},
		{"http://h/p/a%2", "a bad %-escape"},
		{"http://h/p/a%00.txt", "a bad %-escape (or an encoded NUL)"},
		{"/etc/passwd", "must be a relative path without \"..\", or a URL"},
		{"stacks/../../x", "must be a relative path"},
		{"", "must be a relative path"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char json[256];
		snprintf(json, sizeof json, "{\"reportType\":\"LAG\",\"stack_file\":\"%s\"}", bad[i][0]);
		const hg_report *r = one_failed(f, json, "field \"stack_file\": ");
		assert_contains(r->error, bad[i][1]);
	}
	/* Missing: the folder and the segment named, and the URL. */
	const hg_report *r = one_failed(f, "{\"reportType\":\"LAG\",\"stack_file\":"
					"\"http://h/x/none.txt?a=b\"}", "cannot read ");
	char want[512];
	snprintf(want, sizeof want, "cannot read %s/none.txt: No such file or directory (the file "
		 "of \"http://h/x/none.txt?a=b\")", tmp);
	assert_contains(r->error, want);
	f->ctx.stack_dir = NULL;
}

/* Beside the report (its folder) when no stack_dir is given. */
static void test_beside_the_report(void **state)
{
	struct fixture *f = *state;
	char path[512];
	snprintf(path, sizeof path, "%s/r.json", tmp);
	put_file("MTYy.txt", "0,1048574,1,800\n1,3,1,790\n");
	const char *text = "{\"reportType\":\"SLOW_METHOD\",\"stack_file\":\"https://x.cn/a/MTYy.txt\"}";
	reset(f);
	assert_int_equal(hg_reports_read(&f->ctx, path, text, strlen(text), sink, f), 0);
	assert_null(f->rep[0]->error);
	assert_int_equal(f->rep[0]->full.len, 2);
}

/* A report fetched from a bucket: its file fetched beside it through
 * hg_ctx.fetch_beside, by the segment; a failure names the field. */
struct fake_bucket {
	char asked[64];
	const char *body; /* NULL: 404 */
};

static int fake_fetch(void *user, const char *name, char **data, size_t *len, char *why,
		      size_t why_size)
{
	struct fake_bucket *b = user;
	snprintf(b->asked, sizeof b->asked, "%s", name);
	if (!b->body) {
		snprintf(why, why_size, "s3://bucket/day/%s: HTTP 404 after 1 attempt", name);
		return HG_EIO;
	}
	*data = strdup(b->body);
	*len = strlen(b->body);
	return *data ? 0 : HG_ENOMEM;
}

static void test_fetched_beside(void **state)
{
	struct fixture *f = *state;
	struct fake_bucket b = {"", "com.example.A.run(A.java:12)\n"};
	f->ctx.fetch_beside = fake_fetch;
	f->ctx.fetch_beside_user = &b;
	const char *text = "{\"reportType\":\"LAG\",\"stack_file\":\"http://cdn/x/T%59y.txt?s=1\"}";
	reset(f);
	hg_reports_read(&f->ctx, "s3://bucket/day/r.json", text, strlen(text), sink, f);
	assert_null(f->rep[0]->error);
	assert_string_equal(b.asked, "TYy.txt");
	assert_int_equal(f->rep[0]->threads.n, 1);
	b.body = NULL;
	reset(f);
	hg_reports_read(&f->ctx, "s3://bucket/day/r.json", text, strlen(text), sink, f);
	assert_contains(f->rep[0]->error, "field \"stack_file\": cannot fetch \"TYy.txt\" beside the "
					  "report: s3://bucket/day/TYy.txt: HTTP 404");
	/* --stack-dir, when given, is where they all are: not fetched. */
	b.asked[0] = '\0';
	f->ctx.stack_dir = tmp;
	put_file("TYy.txt", "com.example.A.run(A.java:12)\n");
	reset(f);
	hg_reports_read(&f->ctx, "s3://bucket/day/r.json", text, strlen(text), sink, f);
	assert_null(f->rep[0]->error);
	assert_string_equal(b.asked, "");
	f->ctx.stack_dir = NULL;
	f->ctx.fetch_beside = NULL;
	f->ctx.fetch_beside_user = NULL;
}

/* ---- bad stack text ---- */

/* Cut in the middle, lines that are nothing, bad method lines: warned,
 * the rest read. */
static void test_cut_and_bad_lines(void **state)
{
	struct fixture *f = *state;
	f->ctx.stack_dir = tmp;
	put_file("cut-m.txt", "com.example.A.run(A.java:12)\n0,1048574,1,900\n1,7,1,899\n2,8,1,8");
	const hg_report *r = one_good(f, "{\"reportType\":\"ANR\",\"stack_file\":\"cut-m.txt\"}");
	assert_int_equal(r->full.len, 3); /* "2,8,1,8" reads: a cut number is a number */
	put_file("cut-m2.txt", "0,1048574,1,900\n1,7,1,899\n2,8");
	r = one_good(f, "{\"reportType\":\"ANR\",\"stack_file\":\"cut-m2.txt\"}");
	assert_int_equal(r->full.len, 2);
	assert_warning(r, "stack_file, line 3: the text ends in the middle of this line (\"2,8\"): "
			  "cut short, left out");
	put_file("cut-f.txt", "com.example.A.run(A.java:12)\ncom.example.B.go(B.ja");
	r = one_good(f, "{\"reportType\":\"LAG\",\"stack_file\":\"cut-f.txt\"}");
	assert_int_equal(r->threads.items[0].n_frames, 1);
	assert_warning(r, "line 2: the text ends in the middle");
	put_file("cut-f2.txt", "com.example.A.run(A.java:12)\ncom.example.Bg");
	r = one_good(f, "{\"reportType\":\"LAG\",\"stack_file\":\"cut-f2.txt\"}");
	assert_int_equal(r->threads.items[0].n_frames, 1);
	put_file("odd.txt", "\"main\" prio=5 tid=1 Sleeping\ncom.example.A.run(A.java:12)\n"
			    "0,1048574,x,900\n0,1048574,1,900\n-1,2,3,4\nwhat is this\n");
	r = one_good(f, "{\"reportType\":\"ANR\",\"stack_file\":\"odd.txt\"}");
	assert_int_equal(r->full.len, 1);
	assert_warning(r, "stack_file, line 3: \"0,1048574,x,900\" is not a depth,id,count,cost line");
	assert_warning(r, "stack_file: 3 lines are neither a Java frame nor a depth,id,count,cost "
			  "line, left out (the first, line 1: \"\"main\" prio=5 tid=1 Sleeping\")");
	/* Nothing at all: the report has no evidence, and says which field. */
	put_file("empty.txt", "\n\n");
	one_failed(f, "{\"reportType\":\"LAG\",\"stack_file\":\"empty.txt\"}",
		   "stack_file: no Java frame and no depth,id,count,cost line (it is empty)");
	put_file("prose.txt", "hello world\n");
	one_failed(f, "{\"reportType\":\"LAG\",\"stack_file\":\"prose.txt\"}",
		   "(the first line is \"hello world\")");
	/* The file is missing but the report carries its stack: a warning. */
	r = one_good(f, "{\"reportType\":\"ANR\",\"stack\":\"0,1,1,5\\n\",\"stack_file\":\"gone.txt\"}");
	assert_int_equal(r->full.len, 1);
	assert_warning(r, "field \"stack_file\": cannot read");
	f->ctx.stack_dir = NULL;
}

/* The caps hold: a file over --max-input, method lines over --max-stack-lines. */
static void test_caps(void **state)
{
	struct fixture *f = *state;
	f->ctx.stack_dir = tmp;
	put_file("big.txt", "0,1,1,5\n1,2,1,4\n1,3,1,4\n");
	f->ctx.limits.max_input_bytes = 10;
	one_failed(f, "{\"reportType\":\"ANR\",\"stack_file\":\"big.txt\"}", "over the size limit");
	f->ctx.limits.max_input_bytes = HG_DEFAULT_MAX_INPUT_BYTES;
	f->ctx.limits.max_stack_lines = 2;
	one_failed(f, "{\"reportType\":\"ANR\",\"stack_file\":\"big.txt\"}",
		   "stack_file, line 3: too many stack lines");
	f->ctx.limits.max_stack_lines = HG_DEFAULT_MAX_STACK_LINES;
	f->ctx.stack_dir = NULL;
}

/* ---- the fields ---- */

static void test_kinds(void **state)
{
	struct fixture *f = *state;
	f->ctx.stack_dir = tmp;
	put_file("k.txt", "a.B.c(B.java:1)\n");
	static const struct {
		const char *type;
		enum hg_report_kind kind;
		int64_t threshold;
	} cases[] = {
		{"\"LAG\"", HG_KIND_LAG, 2000},        {"\"lag\"", HG_KIND_LAG, 2000},
		{"\"ANR\"", HG_KIND_ANR, 5000},        {"\"SLOW_METHOD\"", HG_KIND_SLOW_METHOD, 700},
		{"\"slow-method\"", HG_KIND_SLOW_METHOD, 700}, {"\"SLOW\"", HG_KIND_SLOW_METHOD, 700},
		{"\"CRASH\"", HG_KIND_UNKNOWN, 0},     {"5", HG_KIND_UNKNOWN, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char json[160];
		snprintf(json, sizeof json, "{\"reportType\":%s,\"stack_file\":\"k.txt\"}",
			 cases[i].type);
		const hg_report *r = one_good(f, json);
		assert_int_equal(r->kind, cases[i].kind);
		assert_int_equal(r->threshold, cases[i].threshold);
		if (cases[i].kind == HG_KIND_UNKNOWN)
			assert_warning(r, "field \"reportType\": ");
	}
	f->ctx.stack_dir = NULL;
}

/* Wrong types are warned naming the field, and the report is read. */
static void test_wrong_types(void **state)
{
	struct fixture *f = *state;
	f->ctx.stack_dir = tmp;
	put_file("w.txt", "a.B.c(B.java:1)\n");
	/* (The unreadable time is also said as a diagnostic, as for any report.) */
	assert_int_equal(read_text(f, "{\"reportType\":\"LAG\",\"stack_file\":\"w.txt\","
				   "\"appName\":{\"x\":1},\"system\":29,\"machine\":[1],"
				   "\"foreground\":\"yes\",\"event_desc\":true,"
				   "\"appFirstStartTime\":\"yesterday\",\"time\":\"2021-13-01\"}"), 0);
	assert_int_equal(f->all_diags, 1);
	assert_int_equal(f->diag[0].severity, HG_DIAG_WARNING);
	const hg_report *r = f->rep[0];
	assert_null(r->error);
	assert_null(r->process);
	assert_string_equal(r->os_version, "29");
	assert_null(r->device);
	assert_int_equal(r->foreground, -1);
	assert_null(r->time);
	assert_string_equal(r->time_written, "2021-13-01");
	assert_warning(r, "field \"appName\": expected a string, got object; left out");
	assert_warning(r, "field \"machine\": expected a string, got array");
	assert_warning(r, "field \"foreground\": expected true or false, got string");
	assert_warning(r, "field \"event_desc\": expected a string, got boolean");
	assert_warning(r, "field \"appFirstStartTime\": \"yesterday\" cannot be read");
	assert_warning(r, "time \"2021-13-01\" cannot be read (month out of range");
	/* A process the report names is more exact than appName. */
	r = one_good(f, "{\"reportType\":\"LAG\",\"stack_file\":\"w.txt\",\"appName\":\"Sweet\","
			"\"process\":\"com.gmlive.soulmatch\",\"foreground\":\"false\"}");
	assert_string_equal(r->process, "com.gmlive.soulmatch");
	assert_int_equal(r->foreground, 0);
	one_failed(f, "{\"reportType\":\"LAG\",\"stack_file\":5}",
		   "field \"stack_file\": expected a file name or a URL, got number");
	one_failed(f, "{\"reportType\":\"LAG\"}", "an APM report without \"stack_file\"");
	f->ctx.stack_dir = NULL;
}

/* ---- times without a zone ---- */

static bool have_tzdata(void)
{
	return access("/usr/share/zoneinfo/Asia/Shanghai", R_OK) == 0 ||
	       (getenv("TZDIR") && *getenv("TZDIR"));
}

static void test_zoneless_times(void **state)
{
	struct fixture *f = *state;
	f->ctx.stack_dir = tmp;
	put_file("z.txt", "a.B.c(B.java:1)\n");
	hg_timezone tz;
	char why[160];
	assert_int_equal(hg_timezone_init(&tz, "+08:00", why, sizeof why), 0);
	tz.who = "hangar test";
	f->ctx.zone = &tz;
	const char *two = "{\"reportType\":\"LAG\",\"stack_file\":\"z.txt\",\"time\":\"2021-07-27 "
			  "15:57:15\",\"appFirstStartTime\":\"2021-07-27 15:56:52\"}\n"
			  "{\"reportType\":\"LAG\",\"stack_file\":\"z.txt\",\"time\":\"2021-07-28 01:00:00\"}\n"
			  "{\"reportType\":\"LAG\",\"stack_file\":\"z.txt\",\"time\":1627372635000}\n"
			  "{\"reportType\":\"LAG\",\"stack_file\":\"z.txt\",\"time\":\"2021-07-27T15:57:15Z\"}\n";
	assert_int_equal(read_text(f, two), 0);
	assert_string_equal(f->rep[0]->time, "2021-07-27T07:57:15.000Z");
	assert_string_equal(f->rep[0]->time_written, "2021-07-27 15:57:15");
	assert_string_equal(f->rep[1]->time, "2021-07-27T17:00:00.000Z"); /* the day before in UTC */
	assert_string_equal(f->rep[2]->time, "2021-07-27T07:57:15.000Z"); /* epoch: no zone to add */
	assert_string_equal(f->rep[3]->time, "2021-07-27T15:57:15.000Z"); /* its own zone */
	/* Said once a run, as a note, naming the zone and the first such time. */
	assert_int_equal(f->all_diags, 1);
	assert_int_equal(f->diag[0].severity, HG_DIAG_NOTE);
	assert_string_equal(f->diag[0].source, "hangar test");
	assert_contains(f->diag[0].message, "times written without a zone were read in +08:00, as "
					    "--timezone says; the first: \"2021-07-27 15:57:15\" "
					    "(mem.json, report 1)");
	assert_int_equal(read_text(f, two), 0);
	assert_int_equal(f->all_diags, 0); /* the same run: said already */
	/* The app started after the report: said. */
	const hg_report *r = one_good(f, "{\"reportType\":\"LAG\",\"stack_file\":\"z.txt\","
				      "\"time\":\"2021-07-27 15:57:15+08:00\","
				      "\"appFirstStartTime\":\"2021-07-27 16:00:00\"}");
	assert_warning(r, "field \"appFirstStartTime\": the app started (2021-07-27T08:00:00.000Z) "
			  "after the report's time (2021-07-27T07:57:15.000Z)");
	if (have_tzdata()) {
		/* An IANA name: each date its own offset (EDT in July, EST in January). */
		assert_int_equal(hg_timezone_init(&tz, "America/New_York", why, sizeof why), 0);
		f->ctx.zone = &tz;
		assert_int_equal(read_text(f, "{\"reportType\":\"LAG\",\"stack_file\":\"z.txt\","
					   "\"time\":\"2021-07-27 15:57:15\"}\n{\"reportType\":\"LAG\","
					   "\"stack_file\":\"z.txt\",\"time\":\"2021-01-27 15:57:15\"}"),
				 0);
		assert_string_equal(f->rep[0]->time, "2021-07-27T19:57:15.000Z");
		assert_string_equal(f->rep[1]->time, "2021-01-27T20:57:15.000Z");
		assert_int_equal(f->all_diags, 1); /* a new zone, a new run: said again */
		assert_contains(f->diag[0].message, "read in America/New_York, as --timezone says");
		/* The article's phone: China, no daylight saving time since 1991. */
		assert_int_equal(hg_timezone_init(&tz, "Asia/Shanghai", why, sizeof why), 0);
		assert_int_equal(read_text(f, "{\"reportType\":\"LAG\",\"stack_file\":\"z.txt\","
					   "\"time\":\"2021-07-27 15:57:15\"}"), 0);
		assert_string_equal(f->rep[0]->time, "2021-07-27T07:57:15.000Z");
	}
	f->ctx.zone = NULL;
	f->ctx.stack_dir = NULL;
}

static int make_tmp(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(tmp, sizeof tmp, "%s/hangar-test-apm.XXXXXX", base);
	return mkdtemp(tmp) ? 0 : -1;
}

static int remove_tmp(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		testdata = argv[1];
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_article_lag),       T(test_article_anr_both_stacks),
		T(test_both_parts_any_order), T(test_url_segment),
		T(test_beside_the_report), T(test_fetched_beside),
		T(test_cut_and_bad_lines), T(test_caps),
		T(test_kinds),             T(test_wrong_types),
		T(test_zoneless_times),
	};
	return cmocka_run_group_tests(tests, make_tmp, remove_tmp);
}

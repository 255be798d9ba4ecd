/* The ELF and Mach-O header parsers of module symbols, on binaries made
 * here byte by byte: identities read right (ELF64/ELF32, both byte orders,
 * notes in segments and sections, thin and fat Mach-O), and truncated,
 * oversized, wrong-typed and random input refused with a reason, never a
 * crash or an out-of-bounds read (ASan watches: each input is a buffer of
 * exactly its size). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hangar/report.h"
#include "hangar/symbols.h"
#include "symbols/symbols_internal.h"

struct mem {
	const unsigned char *p;
	size_t n;
};

static int mem_read(void *user, uint64_t off, void *buf, size_t n)
{
	const struct mem *m = user;
	if (off > m->n || n > m->n - off)
		return -1;
	memcpy(buf, m->p + off, n);
	return 0;
}

/* Parses data[0..n) from a heap copy of exactly n bytes. */
static int parse(const unsigned char *data, size_t n, struct sym_header *h, char *why)
{
	unsigned char *copy = malloc(n ? n : 1);
	assert_non_null(copy);
	memcpy(copy, data, n);
	struct mem m = {copy, n};
	int rc = sym_header_parse(mem_read, &m, n, h, why, 160);
	free(copy);
	return rc;
}

static void put(unsigned char *p, uint64_t v, size_t n, bool be)
{
	for (size_t i = 0; i < n; i++)
		p[be ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static const unsigned char build_id[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
					   7, 8, 9, 10, 11, 12, 13, 14, 15, 0xff};
#define BUILD_ID_HEX "DEADBEEF0102030405060708090A0B0C0D0E0FFF"

/* A GNU build-id note at p: 12 + 4 + 20 bytes. */
static size_t note(unsigned char *p, bool be)
{
	put(p, 4, 4, be);
	put(p + 4, sizeof build_id, 4, be);
	put(p + 8, 3, 4, be); /* NT_GNU_BUILD_ID */
	memcpy(p + 12, "GNU", 4);
	memcpy(p + 16, build_id, sizeof build_id);
	return 36;
}

/* An ELF64 with one PT_NOTE (in_segment) or a SHT_NOTE section plus a
 * .debug_info section (else). */
static size_t make_elf(unsigned char *b, bool is64, bool be, bool in_segment)
{
	memset(b, 0, 1024);
	memcpy(b, "\177ELF", 4);
	b[4] = is64 ? 2 : 1;
	b[5] = be ? 2 : 1;
	b[6] = 1;
	size_t w = is64 ? 8 : 4, eh = is64 ? 64 : 52, ph = is64 ? 56 : 32, sh = is64 ? 64 : 40;
	unsigned char *p = b + 24 + w;   /* e_phoff */
	size_t phoff = eh, notes = eh + ph, names = notes + 36, shoff = 256;
	put(p, in_segment ? phoff : 0, w, be);
	put(p + w, in_segment ? 0 : shoff, w, be);
	p += 2 * w + 4 + 2;
	put(p, ph, 2, be);
	put(p + 2, in_segment ? 1 : 0, 2, be);
	put(p + 4, sh, 2, be);
	put(p + 6, in_segment ? 0 : 3, 2, be);
	put(p + 8, 2, 2, be); /* shstrndx */
	note(b + notes, be);
	if (in_segment) {
		unsigned char *q = b + phoff;
		put(q, 4, 4, be); /* PT_NOTE */
		put(q + (is64 ? 8 : 4), notes, w, be);
		put(q + (is64 ? 32 : 16), 36, w, be);
		return names;
	}
	memcpy(b + names, "\0.note\0.debug_info\0", 19);
	/* section 1: the note; section 2: the names */
	unsigned char *s1 = b + shoff + sh, *s2 = b + shoff + 2 * sh;
	put(s1, 1, 4, be);
	put(s1 + 4, 7, 4, be);
	put(s1 + 8 + 2 * w, notes, w, be);
	put(s1 + 8 + 3 * w, 36, w, be);
	put(s2, 7, 4, be); /* named ".debug_info": it says the file has DWARF */
	put(s2 + 4, 3, 4, be);
	put(s2 + 8 + 2 * w, names, w, be);
	put(s2 + 8 + 3 * w, 19, w, be);
	return shoff + 3 * sh;
}

static const unsigned char uuid[16] = {0x4c, 0x4c, 0x44, 0x4e, 0x55, 0x55, 0x31, 0x44,
				       0xa1, 0xcd, 0xf7, 0x9c, 0xeb, 0x4f, 0x92, 0x6c};
#define UUID_HEX "4C4C444E55553144A1CDF79CEB4F926C"

/* A thin 64-bit Mach-O: LC_UUID, __TEXT at text, a __DWARF segment. */
static size_t make_macho(unsigned char *b, uint32_t cpu, uint32_t sub, uint64_t text)
{
	memset(b, 0, 512);
	put(b, 0xfeedfacf, 4, false);
	put(b + 4, cpu, 4, false);
	put(b + 8, sub, 4, false);
	put(b + 12, 10, 4, false); /* MH_DSYM */
	put(b + 16, 3, 4, false);
	put(b + 20, 24 + 72 + 72, 4, false);
	unsigned char *lc = b + 32;
	put(lc, 0x1b, 4, false);
	put(lc + 4, 24, 4, false);
	memcpy(lc + 8, uuid, 16);
	lc += 24;
	put(lc, 0x19, 4, false);
	put(lc + 4, 72, 4, false);
	memcpy(lc + 8, "__TEXT", 6);
	put(lc + 24, text, 8, false);
	lc += 72;
	put(lc, 0x19, 4, false);
	put(lc + 4, 72, 4, false);
	memcpy(lc + 8, "__DWARF", 7);
	return 32 + 24 + 72 + 72;
}

static void test_elf_identities(void **state)
{
	(void)state;
	unsigned char b[1024];
	struct sym_header h;
	char why[160];
	for (int v = 0; v < 8; v++) {
		bool is64 = v & 1, be = v & 2, seg = v & 4;
		size_t n = make_elf(b, is64, be, seg);
		if (parse(b, n, &h, why) != 0)
			fail_msg("variant %d: %s", v, why);
		assert_int_equal(h.kind, SYM_ELF);
		assert_int_equal(h.n, 1);
		assert_string_equal(h.slices[0].id, BUILD_ID_HEX);
		assert_int_equal(h.slices[0].debug, !seg);
		assert_int_equal(h.slices[0].text_vmaddr, 0);
	}
}

static void test_macho_identities(void **state)
{
	(void)state;
	unsigned char b[2048];
	struct sym_header h;
	char why[160];
	size_t n = make_macho(b, 0x0100000c, 0, 0x100000000);
	assert_int_equal(parse(b, n, &h, why), 0);
	assert_int_equal(h.kind, SYM_MACHO);
	assert_int_equal(h.n, 1);
	assert_string_equal(h.slices[0].id, UUID_HEX);
	assert_string_equal(h.slices[0].arch, "arm64");
	assert_int_equal(h.slices[0].text_vmaddr, 0x100000000);
	assert_true(h.slices[0].debug);
	/* A fat file of two slices: arm64e at 512, x86_64 at 1024. */
	unsigned char fat[1536] = {0};
	put(fat, 0xcafebabe, 4, true);
	put(fat + 4, 2, 4, true);
	size_t a = make_macho(fat + 512, 0x0100000c, 2, 0x180000000);
	size_t x = make_macho(fat + 1024, 0x01000007, 3, 0x100000000);
	fat[1024 + 32 + 8] ^= 0xff; /* another UUID */
	put(fat + 8, 0x0100000c, 4, true);
	put(fat + 16, 512, 4, true);
	put(fat + 20, a, 4, true);
	put(fat + 28, 0x01000007, 4, true);
	put(fat + 36, 1024, 4, true);
	put(fat + 40, x, 4, true);
	assert_int_equal(parse(fat, sizeof fat, &h, why), 0);
	assert_int_equal(h.n, 2);
	assert_string_equal(h.slices[0].arch, "arm64e");
	assert_string_equal(h.slices[0].id, UUID_HEX);
	assert_int_equal(h.slices[0].text_vmaddr, 0x180000000);
	assert_string_equal(h.slices[1].arch, "x86_64");
	assert_string_not_equal(h.slices[1].id, UUID_HEX);
	/* A slice past the end of the file. */
	put(fat + 36, 1400, 4, true);
	assert_int_equal(parse(fat, sizeof fat, &h, why), HG_EPARSE);
	assert_string_equal(why, "fat architecture past the end at 0x1c");
	assert_int_equal(h.n, 0);
}

/* Every prefix of a good file: no crash, and either the same identity
 * (what was cut was not needed) or a reason. */
static void truncations(const unsigned char *b, size_t n, const char *id)
{
	struct sym_header h;
	char why[160];
	for (size_t len = 0; len < n; len++) {
		int rc = parse(b, len, &h, why);
		if (rc == 0) {
			assert_true(h.n >= 1);
			if (h.slices[0].id[0])
				assert_string_equal(h.slices[0].id, id);
		} else {
			assert_int_equal(rc, HG_EPARSE);
			assert_true(why[0] != '\0' || len >= 4);
			assert_int_equal(h.n, 0);
		}
	}
}

static void test_truncated(void **state)
{
	(void)state;
	unsigned char b[1024];
	for (int v = 0; v < 8; v++) {
		size_t n = make_elf(b, v & 1, v & 2, v & 4);
		truncations(b, n, BUILD_ID_HEX);
	}
	truncations(b, make_macho(b, 0x0100000c, 0, 0), UUID_HEX);
	struct sym_header h;
	char why[160];
	size_t n = make_elf(b, true, false, false);
	assert_int_equal(parse(b, n - 1, &h, why), HG_EPARSE);
	assert_string_equal(why, "truncated section header at 0x180");
	n = make_macho(b, 0x0100000c, 0, 0);
	assert_int_equal(parse(b, n - 1, &h, why), HG_EPARSE);
	assert_string_equal(why, "Mach-O load commands past the end at 0x20");
}

static void test_hostile_counts(void **state)
{
	(void)state;
	unsigned char b[1024];
	struct sym_header h;
	char why[160];
	/* 65535 section headers: over the cap, refused before any is read. */
	size_t n = make_elf(b, true, false, false);
	put(b + 60, 0xffff, 2, false);
	assert_int_equal(parse(b, n, &h, why), HG_EPARSE);
	assert_string_equal(why, "too many ELF program or section headers at 0x0");
	/* Section headers at an offset that wraps around. */
	n = make_elf(b, true, false, false);
	put(b + 40, UINT64_MAX - 10, 8, false);
	assert_int_equal(parse(b, n, &h, why), HG_EPARSE);
	/* A note whose sizes are absurd: no identity, no crash. */
	n = make_elf(b, true, false, true);
	put(b + 64 + 56 + 4, 0xffffffff, 4, false);
	assert_int_equal(parse(b, n, &h, why), 0);
	assert_string_equal(h.slices[0].id, "");
	/* Load commands: a zero size (a loop) and a size past the end. */
	n = make_macho(b, 0x0100000c, 0, 0);
	put(b + 32 + 4, 0, 4, false);
	assert_int_equal(parse(b, n, &h, why), HG_EPARSE);
	assert_string_equal(why, "bad load command size at 0x20");
	n = make_macho(b, 0x0100000c, 0, 0);
	put(b + 32 + 24 + 4, 0x7fffffff, 4, false);
	assert_int_equal(parse(b, n, &h, why), HG_EPARSE);
	/* A fat header claiming 100,000 slices; a Java class file. */
	unsigned char fat[64] = {0xca, 0xfe, 0xba, 0xbe, 0, 0x01, 0x86, 0xa0};
	assert_int_equal(parse(fat, sizeof fat, &h, why), HG_EPARSE);
	unsigned char cls[64] = {0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x34};
	assert_int_equal(parse(cls, sizeof cls, &h, why), HG_EPARSE);
	assert_string_equal(why, ""); /* no binary at all: skipped without a word */
	/* Wrong types: an ELF class 3, a text file. */
	n = make_elf(b, true, false, true);
	b[4] = 3;
	assert_int_equal(parse(b, n, &h, why), HG_EPARSE);
	assert_string_equal(why, "unknown ELF class at 0x4");
	assert_int_equal(parse((const unsigned char *)"hello world\n", 12, &h, why), HG_EPARSE);
	assert_string_equal(why, "neither ELF nor Mach-O at 0x0");
}

/* Random bytes behind each magic, and random damage to good files. */
static void test_random(void **state)
{
	(void)state;
	static const unsigned char magics[][4] = {
		{0x7f, 'E', 'L', 'F'}, {0xcf, 0xfa, 0xed, 0xfe}, {0xce, 0xfa, 0xed, 0xfe},
		{0xca, 0xfe, 0xba, 0xbe}, {0xca, 0xfe, 0xba, 0xbf}, {0xfe, 0xed, 0xfa, 0xcf}};
	unsigned char b[2048];
	struct sym_header h;
	char why[160];
	srand(14);
	for (int round = 0; round < 3000; round++) {
		size_t n = (size_t)(rand() % (int)sizeof b);
		for (size_t i = 0; i < n; i++)
			b[i] = (unsigned char)rand();
		if (n >= 4)
			memcpy(b, magics[round % 6], 4);
		int rc = parse(b, n, &h, why);
		assert_true(rc == 0 || rc == HG_EPARSE);
		assert_true(h.n <= SYM_MAX_SLICES);
	}
	for (int round = 0; round < 3000; round++) {
		size_t n = round % 2 ? make_elf(b, round % 4 == 1, round % 8 == 3, round % 3 == 0)
				     : make_macho(b, 0x0100000c, 0, 0);
		for (int k = 0; k < 4; k++)
			b[(size_t)rand() % n] = (unsigned char)rand();
		int rc = parse(b, n, &h, why);
		assert_true(rc == 0 || rc == HG_EPARSE);
	}
}

static void test_normalize_id(void **state)
{
	(void)state;
	char id[SYM_ID_MAX];
	const char *s = "dfbf7be2-4616-3213-8910-b341da781e25";
	assert_true(sym_normalize_id(s, strlen(s), id));
	assert_string_equal(id, "DFBF7BE2461632138910B341DA781E25");
	assert_false(sym_normalize_id("12 34", 5, id));
	assert_false(sym_normalize_id("", 0, id));
	assert_false(sym_normalize_id("--", 2, id));
	char big[80];
	memset(big, 'a', sizeof big);
	assert_false(sym_normalize_id(big, sizeof big, id)); /* longer than any identity */
	assert_true(sym_normalize_id(big, SYM_ID_MAX - 1, id));
}

/* ---- hg_symbols_apply, with a symbolizer that says what it was asked ---- */

/* Answers "FILE 0xADDR" with an inlined call in_ADDR (i.c:1) inside f_ADDR
 * (f.c:2): the names say which address was asked. */
static const char fake_symbolizer[] =
	"#!/bin/sh\n"
	"while IFS= read -r l; do a=${l##* }; printf '{\"Address\":\"%s\",\"Symbol\":["
	"{\"FunctionName\":\"in_%s\",\"FileName\":\"i.c\",\"Line\":1},"
	"{\"FunctionName\":\"f_%s\",\"FileName\":\"f.c\",\"Line\":2}]}\\n' \"$a\" \"$a\" \"$a\"; done\n";

static void write_file(const char *path, const void *data, size_t n, mode_t mode)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static size_t warnings;
static void count_diag(void *user, const hg_diag *d)
{
	(void)user;
	warnings += d->severity == HG_DIAG_WARNING;
}

static hg_report *read_one(const hg_ctx *ctx, const char *text)
{
	hg_report *rep = NULL;
	assert_int_equal(hg_report_read_one(ctx, "t", text, strlen(text), HG_FORMAT_AUTO, &rep), 0);
	assert_non_null(rep);
	return rep;
}

static void assert_named(const hg_frame *f, const char *fn, const char *file, long line, bool inl)
{
	assert_true(f->symbolicated);
	assert_string_equal(f->method, fn);
	assert_string_equal(f->file, file);
	assert_int_equal(f->line, line);
	assert_int_equal(f->inlined, inl);
}

static void test_apply(void **state)
{
	(void)state;
	char dir[] = "/tmp/hg-symbols-XXXXXX", path[4][128];
	assert_non_null(mkdtemp(dir));
	unsigned char b[1024];
	snprintf(path[0], sizeof path[0], "%s/App", dir);
	write_file(path[0], b, make_macho(b, 0x0100000c, 0, 0x100000000), 0644);
	snprintf(path[1], sizeof path[1], "%s/libx.so", dir);
	write_file(path[1], b, make_elf(b, true, false, false), 0644);
	snprintf(path[2], sizeof path[2], "%s/symbolizer", dir);
	write_file(path[2], fake_symbolizer, strlen(fake_symbolizer), 0755);
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = count_diag;
	const char *dirs[] = {dir};
	hg_symbols_opts o = {.dirs = dirs, .n_dirs = 1, .symbolizer = path[2]};
	hg_symbols *s = NULL;
	assert_int_equal(hg_symbols_create(&ctx, &o, &s), 0);
	/* iOS: loaded at 0x104000000, the file's __TEXT at 0x100000000; the
	 * second frame is a return address, asked one byte back. */
	hg_report *rep = read_one(&ctx, "{\"report\":{\"timestamp\":1},\"crash\":{\"error\":{\"type\":"
		"\"hang\"},\"threads\":[{\"index\":0,\"crashed\":true,\"backtrace\":{\"contents\":["
		"{\"instruction_addr\":4362092544},{\"instruction_addr\":4362092568},"
		"{\"instruction_addr\":4096}]}}]},\"binary_images\":[{\"image_addr\":4362076160,"
		"\"image_size\":65536,\"name\":\"/x/App\",\"uuid\":\"4c4c444e-5555-3144-a1cd-f79ceb4f926c\"}]}");
	assert_int_equal(hg_symbols_apply(s, rep), 0);
	const hg_thread *t = &rep->threads.items[0];
	assert_int_equal(t->n_frames, 5);
	assert_named(&t->frames[0], "in_0x100004000", "i.c", 1, true);
	assert_named(&t->frames[1], "f_0x100004000", "f.c", 2, false);
	assert_int_equal(t->frames[0].pc, t->frames[1].pc);
	assert_named(&t->frames[2], "in_0x100004017", "i.c", 1, true);
	assert_named(&t->frames[3], "f_0x100004017", "f.c", 2, false);
	assert_false(t->frames[4].symbolicated); /* no image holds 0x1000 */
	hg_report_destroy(rep);
	/* Android: the rel pc as it is; the image by its Build ID. */
	rep = read_one(&ctx, "----- pid 7 at 2024-01-01 00:00:00 -----\nCmd line: x\n\n"
		"\"main\" prio=5 tid=1 Native\n"
		"  native: #00 pc 000000000004f0a8  /data/app/a/lib/arm64/libx.so (f+8) (BuildId: "
		"deadbeef0102030405060708090a0b0c0d0e0fff)\n"
		"  native: #01 pc 0000000000001000  /data/app/a/lib/arm64/libx.so (BuildId: 00ff)\n"
		"\n----- end 7 -----\n");
	assert_int_equal(hg_symbols_apply(s, rep), 0);
	t = &rep->threads.items[0];
	assert_int_equal(t->n_frames, 3);
	assert_named(&t->frames[1], "f_0x4f0a8", "f.c", 2, false);
	assert_string_equal(t->frames[1].symbol, "f+8"); /* the dump's own word is kept */
	assert_false(t->frames[2].symbolicated);
	assert_int_equal(warnings, 1); /* BuildId 00ff: no file, said */
	/* The same report again: said no more, answered from the run's cache. */
	hg_symbols_stats st;
	hg_symbols_get_stats(s, &st);
	size_t batches = st.batches;
	assert_int_equal(hg_symbols_apply(s, rep), 0); /* named frames are not asked again */
	hg_report_destroy(rep);
	hg_symbols_get_stats(s, &st);
	assert_int_equal(st.batches, batches);
	assert_int_equal(warnings, 1);
	assert_int_equal(st.spawns, 1);
	assert_int_equal(st.queries, 3);
	assert_int_equal(st.binaries, 2);
	assert_int_equal(st.binaries_used, 2);
	assert_int_equal(st.images_found, 2);
	assert_int_equal(st.images_missing, 1);
	/* A lock line stays under its Java frame when a native frame above it
	 * becomes two (an inlined call; answered from the cache). */
	rep = read_one(&ctx, "----- pid 9 at 2024-01-01 00:00:00 -----\nCmd line: x\n\n"
		"\"main\" prio=5 tid=1 Blocked\n"
		"  native: #00 pc 000000000004f0a8  /data/app/a/lib/arm64/libx.so (f+8) (BuildId: "
		"deadbeef0102030405060708090a0b0c0d0e0fff)\n"
		"  at a.B.c(B.java:1)\n"
		"  - waiting to lock <0x1> (a a.X) held by thread 2\n"
		"  at a.B.d(B.java:2)\n"
		"  - locked <0x2> (a a.Y)\n"
		"\n----- end 9 -----\n");
	assert_int_equal(hg_symbols_apply(s, rep), 0);
	t = &rep->threads.items[0];
	assert_int_equal(t->n_frames, 4);
	assert_int_equal(t->n_locks, 2);
	assert_int_equal(t->locks[0].frame, 2);
	assert_string_equal(t->frames[2].method, "c");
	assert_int_equal(t->locks[1].frame, 3);
	hg_report_destroy(rep);
	hg_symbols_get_stats(s, &st);
	assert_int_equal(st.batches, batches);
	/* 9,000 distinct addresses in one report: two batches, all named. */
	size_t cap = 9000 * 120 + 256, len = 0;
	char *big = malloc(cap);
	assert_non_null(big);
	len += (size_t)snprintf(big + len, cap - len, "----- pid 8 at 2024-01-01 00:00:00 -----\n"
				"Cmd line: x\n\n\"main\" prio=5 tid=1 Native\n");
	for (int i = 0; i < 9000; i++)
		len += (size_t)snprintf(big + len, cap - len, "  native: #%02d pc %016x  /x/libx.so "
					"(BuildId: deadbeef0102030405060708090a0b0c0d0e0fff)\n", i,
					0x100000 + 4 * i);
	snprintf(big + len, cap - len, "\n----- end 8 -----\n");
	rep = read_one(&ctx, big);
	free(big);
	assert_int_equal(hg_symbols_apply(s, rep), 0);
	t = &rep->threads.items[0];
	assert_int_equal(t->n_frames, 18000);
	assert_named(&t->frames[2 * 8999 + 1], "f_0x108c9c", "f.c", 2, false);
	hg_report_destroy(rep);
	hg_symbols_get_stats(s, &st);
	assert_int_equal(st.batches, batches + 2);
	assert_int_equal(st.queries, 3 + 9000);
	/* A text line, through the same symbolizer. */
	hg_buf out;
	hg_buf_init(&out);
	const char *line = "  #00 pc 0000000000000010  /x/libx.so (BuildId: DEADBEEF0102030405060708090A0B0C0D0E0FFF)\n";
	assert_int_equal(hg_symbols_text_line(s, line, strlen(line), &out), 1);
	assert_string_equal(out.data, "  #00 pc 0000000000000010  /x/libx.so (BuildId: DEADBEEF0102030405"
			    "060708090A0B0C0D0E0FFF)  # in_0x10 i.c:1 < f_0x10 f.c:2\n");
	assert_int_equal(hg_symbols_text_line(s, "prose\n", 6, &out), 0);
	hg_buf_release(&out);
	hg_symbols_destroy(s);
	for (int i = 0; i < 3; i++)
		assert_int_equal(unlink(path[i]), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf_identities),
		cmocka_unit_test(test_macho_identities),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_hostile_counts),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_normalize_id),
		cmocka_unit_test(test_apply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The identity of a binary from its headers alone: an ELF file's GNU Build
 * ID (the NT_GNU_BUILD_ID note) and a Mach-O file's LC_UUID, for each
 * slice of a fat file, with the __TEXT vmaddr the slide needs.  Symbol
 * folders hold whatever a build left there, and a file may be hostile:
 * every offset, size and count is checked against the file's size and a
 * cap before it is read, and nothing but the headers is read (a 2 GB
 * libUnreal.so costs a few reads).  Our own small parsers rather than
 * libelf: identity is all we need, Mach-O needs one anyway, and DWARF is
 * llvm-symbolizer's job. */
#include <stdio.h>
#include <string.h>

#include "symbols_internal.h"

#define MAX_PHDRS 512
#define MAX_SHDRS 8192
#define MAX_NOTES 4096             /* bytes of one note segment or section read */
#define MAX_CMDS_SIZE (4 * 1024 * 1024)
#define MAX_NCMDS 4096

struct src {
	sym_read_fn read;
	void *user;
	uint64_t size;
	char *why;
	size_t why_size;
};

static int fail(struct src *s, const char *what, uint64_t off)
{
	snprintf(s->why, s->why_size, "%s at 0x%llx", what, (unsigned long long)off);
	return HG_EPARSE;
}

/* Reads [off, off + n) when it lies in the file. */
static int get(struct src *s, uint64_t off, void *buf, size_t n, const char *what)
{
	if (off > s->size || n > s->size - off || s->read(s->user, off, buf, n) != 0)
		return fail(s, what, off);
	return 0;
}

static uint64_t rd(const unsigned char *p, size_t n, bool be)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
	return v;
}

bool sym_magic(const unsigned char m[4])
{
	uint32_t le = (uint32_t)rd(m, 4, false), be = (uint32_t)rd(m, 4, true);
	return memcmp(m, "\177ELF", 4) == 0 || le == 0xfeedface || le == 0xfeedfacf ||
	       be == 0xfeedface || be == 0xfeedfacf || be == 0xcafebabe || be == 0xcafebabf;
}

bool sym_normalize_id(const char *s, size_t len, char out[SYM_ID_MAX])
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '-')
			continue;
		if (c >= 'a' && c <= 'f')
			c = (char)(c - 'a' + 'A');
		else if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F')))
			return false;
		if (n == SYM_ID_MAX - 1)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	return n > 0;
}

static void hex_id(const unsigned char *b, size_t n, char out[SYM_ID_MAX])
{
	static const char digits[] = "0123456789ABCDEF";
	size_t k = 0;
	for (size_t i = 0; i < n && k + 2 < SYM_ID_MAX; i++) {
		out[k++] = digits[b[i] >> 4];
		out[k++] = digits[b[i] & 15];
	}
	out[k] = '\0';
}

/* ---- ELF ---- */

struct elf {
	bool is64, be;
	uint64_t phoff, shoff;
	unsigned phentsize, phnum, shentsize, shnum, shstrndx;
};

/* Looks for NT_GNU_BUILD_ID among the notes of [off, off + size). */
static int elf_notes(struct src *s, const struct elf *e, uint64_t off, uint64_t size,
		     struct sym_slice *out)
{
	unsigned char buf[MAX_NOTES];
	size_t n = size > sizeof buf ? sizeof buf : (size_t)size;
	int rc = get(s, off, buf, n, "truncated note");
	if (rc != 0)
		return rc;
	for (size_t p = 0; p + 12 <= n;) {
		uint64_t namesz = rd(buf + p, 4, e->be), descsz = rd(buf + p + 4, 4, e->be);
		uint64_t type = rd(buf + p + 8, 4, e->be);
		uint64_t name_end = p + 12 + ((namesz + 3) & ~(uint64_t)3);
		uint64_t desc_end = name_end + ((descsz + 3) & ~(uint64_t)3);
		if (namesz > n || descsz > n || name_end > n || name_end + descsz > n)
			break; /* a damaged note ends the search, not the file */
		if (type == 3 && namesz == 4 && memcmp(buf + p + 12, "GNU", 4) == 0 && descsz > 0 &&
		    descsz <= (SYM_ID_MAX - 1) / 2) {
			hex_id(buf + name_end, (size_t)descsz, out->id);
			return 0;
		}
		p = (size_t)desc_end;
	}
	return 0;
}

static int elf_header(struct src *s, struct elf *e)
{
	unsigned char h[64];
	int rc = get(s, 0, h, 52, "truncated ELF header");
	if (rc != 0)
		return rc;
	if (h[4] != 1 && h[4] != 2)
		return fail(s, "unknown ELF class", 4);
	if (h[5] != 1 && h[5] != 2)
		return fail(s, "unknown ELF byte order", 5);
	e->is64 = h[4] == 2;
	e->be = h[5] == 2;
	if (e->is64 && (rc = get(s, 0, h, 64, "truncated ELF header")) != 0)
		return rc;
	const unsigned char *p = h + 24 + (e->is64 ? 8 : 4); /* past e_entry */
	size_t w = e->is64 ? 8 : 4;
	e->phoff = rd(p, w, e->be);
	e->shoff = rd(p + w, w, e->be);
	p += 2 * w + 4 + 2; /* e_flags, e_ehsize */
	e->phentsize = (unsigned)rd(p, 2, e->be);
	e->phnum = (unsigned)rd(p + 2, 2, e->be);
	e->shentsize = (unsigned)rd(p + 4, 2, e->be);
	e->shnum = (unsigned)rd(p + 6, 2, e->be);
	e->shstrndx = (unsigned)rd(p + 8, 2, e->be);
	if (e->phnum > MAX_PHDRS || e->shnum > MAX_SHDRS)
		return fail(s, "too many ELF program or section headers", 0);
	return 0;
}

/* Whether the section named at names + name (of a names table of
 * names_size bytes) is DWARF's .debug_info (or its compressed form). */
static bool debug_info_name(struct src *s, uint64_t names, uint64_t names_size, uint64_t name)
{
	char buf[13];
	size_t n = names_size - name < sizeof buf ? (size_t)(names_size - name) : sizeof buf;
	if (name >= names_size || get(s, names + name, buf, n, "section name") != 0)
		return false;
	return (n >= 12 && memcmp(buf, ".debug_info", 12) == 0) ||
	       (n >= 13 && memcmp(buf, ".zdebug_info", 13) == 0);
}

/* The sections: a SHT_NOTE holding the Build ID (separate debug files keep
 * it there), and whether .debug_info is present. */
static int elf_sections(struct src *s, const struct elf *e, struct sym_slice *out)
{
	size_t need = e->is64 ? 64 : 40, w = e->is64 ? 8 : 4;
	if (e->shnum == 0 || e->shoff == 0)
		return 0;
	if (e->shentsize < need)
		return fail(s, "ELF section headers too small", e->shoff);
	uint64_t str_off = 0, str_size = 0;
	unsigned char sh[64];
	int rc;
	if (e->shstrndx < e->shnum) {
		uint64_t at = e->shoff + (uint64_t)e->shstrndx * e->shentsize;
		if ((rc = get(s, at, sh, need, "truncated section header")) != 0)
			return rc;
		str_off = rd(sh + 8 + 2 * w, w, e->be);
		str_size = rd(sh + 8 + 3 * w, w, e->be);
	}
	for (unsigned i = 0; i < e->shnum; i++) {
		if ((rc = get(s, e->shoff + (uint64_t)i * e->shentsize, sh, need,
			      "truncated section header")) != 0)
			return rc;
		uint64_t name = rd(sh, 4, e->be), type = rd(sh + 4, 4, e->be);
		uint64_t off = rd(sh + 8 + 2 * w, w, e->be), size = rd(sh + 8 + 3 * w, w, e->be);
		if (!out->debug && str_size)
			out->debug = debug_info_name(s, str_off, str_size, name);
		if (type == 7 /* SHT_NOTE */ && !out->id[0] && (rc = elf_notes(s, e, off, size, out)) != 0)
			return rc;
	}
	return 0;
}

static int parse_elf(struct src *s, struct sym_header *out)
{
	struct elf e;
	int rc = elf_header(s, &e);
	if (rc != 0)
		return rc;
	struct sym_slice *sl = &out->slices[0];
	size_t need = e.is64 ? 56 : 32;
	if (e.phnum && e.phentsize < need)
		return fail(s, "ELF program headers too small", e.phoff);
	for (unsigned i = 0; i < e.phnum && !sl->id[0]; i++) {
		unsigned char ph[56];
		if ((rc = get(s, e.phoff + (uint64_t)i * e.phentsize, ph, need,
			      "truncated program header")) != 0)
			return rc;
		if (rd(ph, 4, e.be) != 4 /* PT_NOTE */)
			continue;
		uint64_t off = e.is64 ? rd(ph + 8, 8, e.be) : rd(ph + 4, 4, e.be);
		uint64_t size = e.is64 ? rd(ph + 32, 8, e.be) : rd(ph + 16, 4, e.be);
		if ((rc = elf_notes(s, &e, off, size, sl)) != 0)
			return rc;
	}
	if ((rc = elf_sections(s, &e, sl)) != 0)
		return rc;
	out->kind = SYM_ELF;
	out->n = 1;
	return 0;
}

/* ---- Mach-O ---- */

static void arch_name(uint32_t type, uint32_t sub, char out[16])
{
	const char *name = "";
	sub &= 0xffffff;
	switch (type) {
	case 0x0100000c: name = sub == 2 ? "arm64e" : "arm64"; break;
	case 0x0200000c: name = "arm64_32"; break;
	case 0x01000007: name = "x86_64"; break;
	case 7: name = "i386"; break;
	case 12: name = sub == 9 ? "armv7" : sub == 11 ? "armv7s" : sub == 12 ? "armv7k" : "arm"; break;
	}
	snprintf(out, 16, "%s", name);
}

static int parse_thin(struct src *s, uint64_t base, uint64_t end, struct sym_slice *out)
{
	unsigned char h[32];
	int rc = get(s, base, h, 28, "truncated Mach-O header");
	if (rc != 0)
		return rc;
	uint32_t le = (uint32_t)rd(h, 4, false);
	bool be = le == 0xcefaedfe || le == 0xcffaedfe;
	uint32_t magic = (uint32_t)rd(h, 4, be);
	if (magic != 0xfeedface && magic != 0xfeedfacf)
		return fail(s, "not a Mach-O header", base);
	bool is64 = magic == 0xfeedfacf;
	arch_name((uint32_t)rd(h + 4, 4, be), (uint32_t)rd(h + 8, 4, be), out->arch);
	uint64_t ncmds = rd(h + 16, 4, be), sizeofcmds = rd(h + 20, 4, be);
	uint64_t at = base + (is64 ? 32 : 28);
	if (ncmds > MAX_NCMDS || sizeofcmds > MAX_CMDS_SIZE || at > end || sizeofcmds > end - at)
		return fail(s, "Mach-O load commands past the end", at);
	uint64_t stop = at + sizeofcmds;
	for (uint64_t i = 0; i < ncmds; i++) {
		unsigned char lc[8 + 16 + 8];
		if (stop - at < 8 || (rc = get(s, at, lc, 8, "truncated load command")) != 0)
			return rc ? rc : fail(s, "truncated load command", at);
		uint64_t cmd = rd(lc, 4, be), size = rd(lc + 4, 4, be);
		if (size < 8 || size > stop - at)
			return fail(s, "bad load command size", at);
		bool seg = cmd == 0x19 || cmd == 0x1;
		if (cmd == 0x1b && size >= 24) { /* LC_UUID */
			if ((rc = get(s, at + 8, lc + 8, 16, "truncated LC_UUID")) != 0)
				return rc;
			hex_id(lc + 8, 16, out->id);
		} else if (seg && size >= (cmd == 0x19 ? 32u + 8 : 24u + 4)) {
			/* LC_SEGMENT(_64): segname[16], then vmaddr */
			if ((rc = get(s, at + 8, lc + 8, cmd == 0x19 ? 24 : 20, "truncated segment")) != 0)
				return rc;
			if (memcmp(lc + 8, "__TEXT\0", 7) == 0)
				out->text_vmaddr = rd(lc + 24, cmd == 0x19 ? 8 : 4, be);
			else if (memcmp(lc + 8, "__DWARF\0", 8) == 0)
				out->debug = true;
		}
		at += size;
	}
	return 0;
}

static int parse_fat(struct src *s, struct sym_header *out)
{
	unsigned char h[8];
	int rc = get(s, 0, h, 8, "truncated fat header");
	if (rc != 0)
		return rc;
	bool is64 = rd(h, 4, true) == 0xcafebabf;
	uint64_t n = rd(h + 4, 4, true);
	/* Java class files share the magic: their "count" is a version
	 * number (45 and up), never a handful of architectures (Apple's
	 * tools draw the line at 30 too).  Not a binary: no reason given. */
	if (n >= 30 && !is64) {
		s->why[0] = '\0';
		return HG_EPARSE;
	}
	if (n == 0 || n > SYM_MAX_SLICES)
		return fail(s, n ? "too many fat architectures" : "a fat file of no architecture", 4);
	size_t entry = is64 ? 32 : 20;
	for (uint64_t i = 0; i < n; i++) {
		unsigned char a[32];
		if ((rc = get(s, 8 + i * entry, a, entry, "truncated fat architecture")) != 0)
			return rc;
		uint64_t off = is64 ? rd(a + 8, 8, true) : rd(a + 8, 4, true);
		uint64_t size = is64 ? rd(a + 16, 8, true) : rd(a + 12, 4, true);
		if (off > s->size || size > s->size - off)
			return fail(s, "fat architecture past the end", 8 + i * entry);
		struct sym_slice *sl = &out->slices[out->n];
		memset(sl, 0, sizeof *sl);
		if ((rc = parse_thin(s, off, off + size, sl)) != 0)
			return rc;
		out->n++;
	}
	return 0;
}

int sym_header_parse(sym_read_fn read, void *user, uint64_t size, struct sym_header *out,
		     char *why, size_t why_size)
{
	struct src s = {read, user, size, why, why_size};
	memset(out, 0, sizeof *out);
	why[0] = '\0';
	unsigned char m[4];
	int rc = get(&s, 0, m, 4, "too short for a binary");
	if (rc != 0)
		return rc;
	if (!sym_magic(m))
		return fail(&s, "neither ELF nor Mach-O", 0);
	if (memcmp(m, "\177ELF", 4) == 0)
		rc = parse_elf(&s, out);
	else if (rd(m, 4, true) == 0xcafebabe || rd(m, 4, true) == 0xcafebabf)
		rc = parse_fat(&s, out);
	else if ((rc = parse_thin(&s, 0, size, &out->slices[0])) == 0)
		out->n = 1;
	if (rc == 0 && out->kind == SYM_NONE)
		out->kind = SYM_MACHO;
	if (rc != 0) {
		out->kind = SYM_NONE;
		out->n = 0;
	}
	return rc;
}

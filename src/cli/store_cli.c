/* Database path and row printing for the store commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hangar/cluster.h"
#include "store_cli.h"

const char *store_path(const char *option)
{
	if (option)
		return option;
	const char *env = getenv("HANGAR_DB");
	return env && *env ? env : "hangar.db";
}

/* path as a shell word: as it is when that is safe, else in double quotes
 * (with ", \, $ and ` escaped). */
static void shell_word(hg_buf *out, const char *path)
{
	if (*path && strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				  "0123456789_./+:,@%-") == strlen(path)) {
		hg_buf_puts(out, path);
		return;
	}
	hg_buf_putc(out, '"');
	for (const char *p = path; *p; p++) {
		if (strchr("\"\\$`", *p))
			hg_buf_putc(out, '\\');
		hg_buf_putc(out, *p);
	}
	hg_buf_putc(out, '"');
}

hg_store *open_store_in(hg_ctx *ctx, const char *path, enum hg_store_mode mode)
{
	hg_store *store = NULL;
	int rc = hg_store_open_mode(ctx, path, mode, &store);
	if (rc == HG_ENOENT) {
		/* A typo in --db must not leave an empty store behind (it did:
		 * 1.1 MB, exit 0), nor look like an empty one. */
		hg_buf word;
		hg_buf_init(&word);
		shell_word(&word, path);
		hg_diagf(ctx, HG_DIAG_ERROR, path, 0, 0, 0,
			 "no hangar store here; make one with 'hangar ingest --db %s REPORTS...'",
			 word.failed || !word.data ? path : word.data);
		hg_buf_release(&word);
	}
	return rc == 0 ? store : NULL;
}

int cli_store_failed(const char *cmd, int rc)
{
	if (rc == HG_EPARSE || rc == HG_EIO)
		fprintf(stderr, "hangar %s: cannot read the store (said above)\n", cmd);
	else
		fprintf(stderr, "hangar %s: %s\n", cmd, hg_strerror(rc));
	return EXIT_SOME_FAILED;
}

hg_store *open_store(const char *option)
{
	/* The store keeps its context for its whole life: one per process. */
	static hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = cli_print_diag;
	return open_store_in(&ctx, store_path(option), HG_STORE_READ_ONLY);
}

int cli_sessions_read(const char *path, hg_sessions **out)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	ctx.diag = cli_print_diag;
	return hg_sessions_read(&ctx, path, out) == 0 ? EXIT_FINE : EXIT_SOME_FAILED;
}

bool parse_row_format(const char *cmd, const char *value, hg_rows *out)
{
	if (!strcmp(value, "table"))
		*out = HG_ROWS_TABLE;
	else if (!strcmp(value, "json"))
		*out = HG_ROWS_JSON;
	else if (!strcmp(value, "csv"))
		*out = HG_ROWS_CSV;
	else {
		cli_usage_error(cmd, "unknown format '%s' (table, json, csv)", value);
		return false;
	}
	return true;
}

/* The families, distinct, in the order of the kinds; *n of them. */
static const char *const *families(size_t *n)
{
	static const char *list[64];
	static size_t count;
	if (!count) {
		/* Kinds past the last are named "unknown", as is kind 0. */
		for (int k = 0; k < 64; k++) {
			enum hg_report_kind kind = (enum hg_report_kind)k;
			if (k > 0 && !strcmp(hg_report_kind_name(kind), "unknown"))
				break;
			const char *f = hg_signature_family(kind);
			size_t i = 0;
			while (i < count && strcmp(list[i], f))
				i++;
			if (i == count)
				list[count++] = f;
		}
	}
	*n = count;
	return list;
}

bool parse_kind(const char *cmd, const char *value)
{
	size_t n;
	const char *const *list = families(&n);
	hg_buf all;
	hg_buf_init(&all);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(list[i], value)) {
			hg_buf_release(&all);
			return true;
		}
		hg_buf_printf(&all, "%s%s", i ? ", " : "", list[i]);
	}
	/* A kind grouped under another family (block, touch_lag, ...). */
	const char *family = NULL;
	for (int k = 1; k < 64 && !family; k++) {
		enum hg_report_kind kind = (enum hg_report_kind)k;
		if (!strcmp(hg_report_kind_name(kind), "unknown"))
			break;
		if (!strcmp(hg_report_kind_name(kind), value))
			family = hg_signature_family(kind);
	}
	const char *near = cli_nearest(value, list, n);
	if (family)
		cli_usage_error(cmd, "--kind takes a family, and %s reports are grouped under '%s' "
				"(families: %s)", value, family, all.data ? all.data : "");
	else if (near)
		cli_usage_error(cmd, "unknown --kind '%s'; did you mean '%s'? (families: %s)", value,
				near, all.data ? all.data : "");
	else
		cli_usage_error(cmd, "unknown --kind '%s' (families: %s)", value,
				all.data ? all.data : "");
	hg_buf_release(&all);
	return false;
}

/* Bytes of a table for a person (escaped for a terminal), or of CSV and
 * JSON (exactly). */
static void write_text(void *user, const char *s, size_t len)
{
	cli_write_text(user, s, len);
}

static void write_data(void *user, const char *s, size_t len)
{
	fwrite(s, 1, len, user);
}

static void put_cells(FILE *out, hg_rows f, const hg_row_cell *cells, size_t n, bool header)
{
	hg_buf b;
	hg_buf_init(&b);
	if (header)
		hg_render_row_header(&b, f, cells, n);
	else
		hg_render_row(&b, f, cells, n);
	if (!b.failed && b.len)
		(f == HG_ROWS_TABLE ? write_text : write_data)(out, b.data, b.len);
	hg_buf_release(&b);
}

void print_header(FILE *out, hg_rows f, const hg_row_cell *cells, size_t n)
{
	put_cells(out, f, cells, n, true);
}

void print_row(FILE *out, hg_rows f, const hg_row_cell *cells, size_t n)
{
	put_cells(out, f, cells, n, false);
}

hg_table *cli_table_create(FILE *out, hg_rows f, int width, hg_store *store)
{
	return hg_table_create(f, width, store, f == HG_ROWS_TABLE ? write_text : write_data,
			       out);
}

bool cli_text_width(const char *cmd, const char *arg, int *width)
{
	if (!arg) {
		*width = cli_default_width(STDOUT_FILENO);
		return true;
	}
	if (cli_parse_width(arg, width))
		return true;
	cli_usage_error(cmd, "--width wants columns >= 0 (0: no limit), not '%s'", arg);
	return false;
}

/* --since/--until: a relative age ("90m", "24h", "7d", "2w": that long
 * before now) or anything hg_store_time reads.  Usage error when neither. */
static int store_time(hg_store *store, const char *cmd, const char *option, const char **arg,
		      char out[32])
{
	if (!*arg)
		return EXIT_FINE;
	char *end = NULL;
	long long n = strtoll(*arg, &end, 10);
	static const char units[] = "smhdw";
	static const long long seconds[] = {1, 60, 3600, 86400, 604800};
	const char *u = end && end != *arg && *end && !end[1] ? strchr(units, *end) : NULL;
	char digits[32];
	const char *text = *arg;
	if (u && n >= 0 && n <= 100LL * 365 * 86400) {
		snprintf(digits, sizeof digits, "%lld",
			 ((long long)time(NULL) - n * seconds[u - units]) * 1000LL);
		text = digits;
	}
	if (hg_store_time(store, text, out) != 0)
		return cli_usage_error(cmd, "%s wants a time (2024-04-25, 2024-04-25T08:00:00Z, "
				       "epoch ms) or an age (24h, 7d), not '%s'", option, *arg);
	*arg = out;
	return EXIT_FINE;
}

int cli_store_window(hg_store *store, const char *cmd, const char **since, const char **until,
		     char buf[2][32])
{
	int bad = store_time(store, cmd, "--since", since, buf[0]);
	return bad != EXIT_FINE ? bad : store_time(store, cmd, "--until", until, buf[1]);
}

bool cli_namer_create(const hg_ctx *ctx, const char *cmd, const char *mapping,
		      const char *const *proguard, int n_proguard, const char *mapping_dir,
		      const char *const *symbol_dirs, int n_symbol_dirs, hg_namer **out)
{
	hg_namer_opts o = {mapping, proguard, n_proguard, mapping_dir};
	int rc = hg_namer_create(ctx, &o, out);
	if (rc == 0 && n_symbol_dirs && hg_namer_add_symbols(*out, symbol_dirs, n_symbol_dirs) != 0) {
		hg_namer_destroy(*out);
		*out = NULL;
		return false;
	}
	if (rc == HG_ENOENT)
		fprintf(stderr, "hangar %s: %s: not a folder\n", cmd, mapping_dir);
	return rc == 0;
}

int store_cmd_option(struct store_cmd *cmd, int c, char **argv)
{
	switch (c) {
	case 'D': cmd->db = optarg; return STORE_CMD_NEXT;
	case 'f': return parse_row_format(cmd->name, optarg, &cmd->format) ? STORE_CMD_NEXT : EXIT_USAGE;
	case 'h': cmd->usage(stdout); return EXIT_FINE;
	case ':': return cli_usage_error(cmd->name, "option '%s' needs a value", argv[optind - 1]);
	default: return cli_unknown_option(cmd->name, cmd->long_options, argv, optind, optopt);
	}
}

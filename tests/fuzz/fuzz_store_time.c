/* libFuzzer target: report times in the store's form computed in C
 * (store_time_fast) against SQLite's own expression (STORE_TIME_SQL), the
 * answer the store used before.  Invariant: whenever the C path takes a
 * text, its answer is SQLite's, byte for byte ("" for NULL). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"

static void require(bool ok, const char *what, const char *text, const char *c, const char *sql)
{
	if (!ok) {
		fprintf(stderr, "fuzz_store_time: invariant violated: %s: \"%s\": C \"%s\", SQLite \"%s\"\n",
			what, text, c, sql);
		__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static hg_db *db;
	if (!db && db_open(":memory:", 1000, &db) != 0)
		return 0;
	if (size > 64 || memchr(data, 0, size))
		return 0;
	char text[65];
	memcpy(text, data, size);
	text[size] = '\0';
	char fast[32];
	if (!store_time_fast(text, fast))
		return 0;
	hg_db_stmt *st = db_stmt(db, 0, "SELECT " STORE_TIME_SQL("?1"));
	if (!st)
		return 0;
	db_bind_text(st, 1, text);
	char sql[32] = "";
	if (db_step(st) == DB_ROW && db_col_text(st, 0))
		snprintf(sql, sizeof sql, "%s", db_col_text(st, 0));
	db_reset(st);
	require(strcmp(fast, sql) == 0, "C and SQLite differ", text, fast, sql);
	return 0;
}

/* hg_store_symtab: frame texts numbered by the thread that prepares
 * reports, so that the writer finds a node's symbol id by its number (an
 * array) instead of hashing and comparing its text (a tenth of a big
 * ingest's writer).  Each table has a serial of its own, which the
 * prepared reports carry: a store meeting another table's numbers starts
 * its array over. */
#include <stdatomic.h>
#include <stdlib.h>

#include "store_internal.h"

#define SYMTAB_MAX 1000000 /* numbers; past this the table starts over, with a new serial */

struct hg_store_symtab {
	strmap numbers;        /* text -> its number */
	uint64_t serial;
};

static atomic_uint_fast64_t serials = 1;

hg_store_symtab *hg_store_symtab_create(void)
{
	hg_store_symtab *tab = calloc(1, sizeof *tab);
	if (tab)
		tab->serial = atomic_fetch_add(&serials, 1);
	return tab;
}

void hg_store_symtab_destroy(hg_store_symtab *tab)
{
	if (!tab)
		return;
	strmap_clear(&tab->numbers);
	free(tab);
}

uint32_t store_symtab_number(hg_store_symtab *tab, const char *text, uint64_t *serial)
{
	if (tab->numbers.len >= SYMTAB_MAX) { /* start over: numbers of a new table */
		strmap_clear(&tab->numbers);
		tab->serial = atomic_fetch_add(&serials, 1);
	}
	*serial = tab->serial;
	int64_t num;
	if (strmap_get(&tab->numbers, text, &num))
		return (uint32_t)num;
	num = (int64_t)tab->numbers.len + 1;
	return strmap_put(&tab->numbers, text, num) == 0 ? (uint32_t)num : 0;
}

/* hg_store_symtab: frame texts numbered by the thread that prepares
 * reports, so that the writer finds a node's symbol id by its number (an
 * array) instead of hashing and comparing its text (a tenth of a big
 * ingest's writer).  Each table has a serial of its own, which the
 * prepared reports carry: a store meeting another table's numbers starts
 * its array over. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

#define SYMTAB_MAX 1000000 /* numbers; past this the table starts over, with a new serial */

struct hg_store_symtab {
	char **texts;          /* owned; NULL: empty slot */
	uint32_t *nums;
	size_t mask, len;
	uint64_t serial;
};

static atomic_uint_fast64_t serials = 1;

static size_t hash_text(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

static void clear(hg_store_symtab *tab)
{
	for (size_t i = 0; tab->texts && i <= tab->mask; i++)
		free(tab->texts[i]);
	free(tab->texts);
	free(tab->nums);
	tab->texts = NULL;
	tab->nums = NULL;
	tab->mask = tab->len = 0;
	tab->serial = atomic_fetch_add(&serials, 1);
}

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
	clear(tab);
	free(tab);
}

static int grow(hg_store_symtab *tab)
{
	size_t cap = tab->texts ? (tab->mask + 1) * 2 : 4096;
	char **texts = calloc(cap, sizeof *texts);
	uint32_t *nums = malloc(cap * sizeof *nums);
	if (!texts || !nums) {
		free(texts);
		free(nums);
		return HG_ENOMEM;
	}
	for (size_t i = 0; tab->texts && i <= tab->mask; i++) {
		if (!tab->texts[i])
			continue;
		size_t j = hash_text(tab->texts[i]) & (cap - 1);
		while (texts[j])
			j = (j + 1) & (cap - 1);
		texts[j] = tab->texts[i];
		nums[j] = tab->nums[i];
	}
	free(tab->texts);
	free(tab->nums);
	tab->texts = texts;
	tab->nums = nums;
	tab->mask = cap - 1;
	return 0;
}

uint32_t store_symtab_number(hg_store_symtab *tab, const char *text, uint64_t *serial)
{
	if (tab->len >= SYMTAB_MAX)
		clear(tab);
	*serial = tab->serial;
	if ((!tab->texts || 2 * (tab->len + 1) > tab->mask + 1) && grow(tab) != 0)
		return 0;
	size_t i = hash_text(text) & tab->mask;
	for (; tab->texts[i]; i = (i + 1) & tab->mask)
		if (strcmp(tab->texts[i], text) == 0)
			return tab->nums[i];
	if (!(tab->texts[i] = strdup(text)))
		return 0;
	tab->nums[i] = (uint32_t)++tab->len;
	return tab->nums[i];
}

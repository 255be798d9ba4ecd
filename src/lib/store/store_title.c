/* One title for a cluster whose reports title it differently.  A title
 * is the key frame and what tells it apart (cluster_method.c,
 * cluster_thread.c): "#41907 in DetailActivity", "Foo.run (broadcast
 * ANR)".  Reports of one cluster agree on the frame and may differ in the
 * rest (an unnamed key reached in several screens; one app frame in ANRs
 * of two types): the merged title keeps what they share and says the
 * rest differs.  The rule is commutative and associative, so a cluster's
 * title does not depend on the order reports arrive, a rerun after a
 * kill, or the order shards are merged. */
#include <stdlib.h>
#include <string.h>

#include "hangar/text.h"
#include "store_internal.h"

#define SCREENS " in several screens"
#define ANY_ANR " (ANR)"

/* The frame part of a title and the kind of its tail: " in SCREEN" (1),
 * " (... ANR)" (2), or none (0). */
static size_t frame_part(const char *t, int *tail)
{
	size_t n = strlen(t);
	*tail = hg_str_ends_with(t, SCREENS) ? 1 : hg_str_ends_with(t, ANY_ANR) ? 2 : 0;
	if (*tail)
		return n - strlen(*tail == 1 ? SCREENS : ANY_ANR);
	if (hg_str_ends_with(t, " ANR)")) {
		const char *open = NULL;
		for (const char *p = t; (p = strstr(p, " (")) != NULL; p++)
			open = p;
		if (open) {
			*tail = 2;
			return (size_t)(open - t);
		}
	}
	const char *in = NULL;
	for (const char *p = t; (p = strstr(p, " in ")) != NULL; p++)
		in = p;
	if (in && !strchr(in + 4, ' ')) {
		*tail = 1;
		return (size_t)(in - t);
	}
	*tail = 0;
	return n;
}

char *store_title_merge(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return strdup(a);
	int ta, tb;
	size_t na = frame_part(a, &ta), nb = frame_part(b, &tb);
	if (ta && ta == tb && na == nb && memcmp(a, b, na) == 0) {
		const char *tail = ta == 1 ? SCREENS : ANY_ANR;
		char *t = malloc(na + strlen(tail) + 1);
		if (t) {
			memcpy(t, a, na);
			strcpy(t + na, tail);
		}
		return t;
	}
	return strdup(strcmp(a, b) < 0 ? a : b); /* unrelated: the smaller, still one answer */
}

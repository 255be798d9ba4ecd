/* Grouping rules as cluster.c reads them (private to cluster.c and
 * cluster_rules.c). */
#ifndef HANGAR_LIB_CLUSTER_INTERNAL_H
#define HANGAR_LIB_CLUSTER_INTERNAL_H

#include <stddef.h>

#include "regex.h"

#define HG_DEFAULT_KEY_ANCESTORS 3
#define HG_DEFAULT_THREAD_FRAMES 5
#define HG_MAX_KEY_ANCESTORS 64
#define HG_MAX_THREAD_FRAMES 64

struct hg_rules {
	hg_regex **app;         /* malloc'ed, each owned */
	size_t n_app, cap_app;
	hg_regex **ignore;
	size_t n_ignore, cap_ignore;
	int key_ancestors;
	int thread_frames;
};

#endif

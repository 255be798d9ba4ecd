/* Report texts as the store keeps them (store_text.c), the one place that
 * encodes and decodes reports.text.  A stored text is self-describing: one
 * that begins with the zstd frame magic (28 B5 2F FD) is a single zstd
 * frame, with its content size and checksum, compressed with or without a
 * dictionary; anything else is the report's bytes as they were (stores
 * written before compression, and texts too small to gain).  A report text
 * that itself begins with the magic is always compressed, so the rule holds
 * for every text.  content_hash stays the SHA-256 of the raw bytes.
 *
 * Dictionaries: one per report family (clusters.kind: anr, lag,
 * slow_method, ...), trained once the store holds STORE_TEXT_TRAIN_MIN
 * texts of that family and has none, kept in text_dicts(id, kind, dict).
 * A dictionary's id is derived from its content (same id, same bytes) and
 * is the id written in the frames that use it, so merge copies frames
 * verbatim and the shard's dictionaries with INSERT OR IGNORE.  Texts
 * stored before a family's dictionary stay as they are. */
#ifndef HANGAR_STORE_TEXT_H
#define HANGAR_STORE_TEXT_H

#include <stddef.h>
#include <stdint.h>

typedef struct hg_store hg_store;

/* The zstd frame magic as a stored text's first bytes. */
#define STORE_TEXT_MAGIC "\x28\xb5\x2f\xfd"
/* Level 3 (measured against 1 and 6, see store_text.c). */
#define STORE_TEXT_LEVEL 3
/* A family's dictionary is trained from its latest texts, up to this many
 * bytes of them, once this many are stored.  1 MB: training from 2 MB
 * cost twice the instructions (900M against 480M for slow_method's) for
 * dictionaries within 1-4% of the same size, on the writer's thread. */
#define STORE_TEXT_TRAIN_MIN 1000
#define STORE_TEXT_SAMPLE_BYTES ((size_t)1 << 20)
/* The largest dictionary trained. */
#define STORE_TEXT_DICT_BYTES ((size_t)64 << 10)

/* The bytes to store as reports.text for a report of family (the
 * cluster's kind) whose text is text[0..len): *packed NULL when the text
 * is stored as it is, else a malloc'd zstd frame of *packed_len bytes
 * (the caller frees it).  May train the family's dictionary, which writes
 * text_dicts: inside the caller's write transaction.  0 or a db.h error. */
int store_text_encode(hg_store *store, const char *family, const char *text, size_t len,
		      void **packed, size_t *packed_len);
/* The report text stored as stored[0..n) (reports.text of report id):
 * *text malloc'd with a NUL after its *len bytes.  0, or HG_EPARSE (a
 * corrupt frame, a dictionary the store lacks), HG_ELIMIT (a frame of more
 * bytes than ctx's max_input_bytes or of unknown size), HG_EIO (the
 * dictionary could not be read), HG_ENOMEM: each with a diagnostic
 * naming the store and the report. */
int store_text_decode(hg_store *store, int64_t id, const void *stored, size_t n, char **text,
		      size_t *len);
/* Merging (the shard ATTACHed as schema, inside the merge's transaction):
 * the shard's dictionaries the store lacks, before its frames are copied;
 * a dictionary id both have with different bytes is an error.  0 or an
 * hg error (with a diagnostic). */
int store_text_merge(hg_store *store, const char *schema, const char *shard_path);
/* Compresses the raw texts of up to limit reports past after_id, inside
 * the caller's batch (for a later prune or check to shrink a store
 * written before compression, a slice at a time): *last is the last id
 * looked at (0: none left), *packed how many were rewritten.  0 or an hg
 * error. */
int store_text_recompress(hg_store *store, int64_t after_id, int64_t limit, int64_t *last,
			  int64_t *packed);
/* Drops the handle's contexts and dictionaries: a rollback may have
 * undone a dictionary just trained (and close frees them). */
void store_text_forget(hg_store *store);

#endif

/* An ingest run's reader thread: files, folders (hg_input_list_folder:
 * searched recursively, in a stable order, regular files only, links
 * followed while they stay inside; never waited on) and stdin
 * or FIFOs (streams); each report parsed, named (mappings) and signed
 * here, and prepared for the store here too unless the writer is idle. */
#include <stdlib.h>
#include <string.h>

#include "hangar/input.h"
#include "internal.h"

int ingest_on_report(void *user, hg_report *rep)
{
	struct hg_ingest *in = user;
	in->reports_of_object++;
	struct ingest_item item = {.rep = rep};
	if (!rep->error) {
		if (!rep->process && in->opts.app) /* stored as the report's app: regroup finds it */
			rep->process = hg_arena_strdup(rep->arena, in->opts.app);
		hg_namer_name(&in->names, rep, in->opts.app_version, in->path);
		item.err = hg_signature_compute(rep, in->rules, rep->arena, &item.sig);
		if (!item.err && !item.sig.app_known && !in->warned_no_app) {
			in->warned_no_app = true;
			hg_diagf(&in->ctx, HG_DIAG_WARNING, rep->source, rep->line, 0, 0,
				 "the report names no app (no process or bundle id): reports like it "
				 "are grouped apart, as \"%s\"; --app NAME names their app",
				 item.sig.app);
		}
		/* Preparing it for the store (its content hash, its tree) goes to
		 * the writer while the writer keeps up (the queue less than half
		 * full), so that the queue settles there with both threads busy:
		 * on two cores the reader is the busier thread of a bucket's
		 * first half and the writer of its second (its indexes grow).
		 * Either way the stored result is the same (each numbers symbols
		 * in a symtab of its own, which the store keeps apart). */
		if (!item.err && in->opts.prepare_on != HG_PREPARE_READER &&
		    (in->opts.prepare_on == HG_PREPARE_WRITER ||
		     ingest_queue_writer_keeps_up(&in->queue)))
			item.prepare = true;
		else if (!item.err)
			item.err = hg_store_prepare_with(rep, rep->text ? rep->text : "",
							 rep->text ? rep->text_len : 0, in->symbols,
							 &item.prep);
	}
	if (!ingest_queue_push(&in->queue, &item)) {
		ingest_item_release(&item);
		return HG_EIO; /* the writer gave up */
	}
	return 0;
}

static void ingest_file(struct hg_ingest *in, const char *path)
{
	in->path = path;
	int rc = hg_reports_read_path(&in->ctx, path, NULL, in->opts.format, ingest_on_report, in);
	if (rc == HG_EIO || rc == HG_ELIMIT) {
		/* Unreadable (or the rest of it): recorded too, so that nothing
		 * is lost without a trace. */
		struct ingest_item item = {.path = strdup(path), .reason = strdup(in->diags.last)};
		if (!item.path || !item.reason || !ingest_queue_push(&in->queue, &item))
			ingest_item_release(&item);
	}
}

/* A folder's report files, as hg_input_list_folder finds them (stack
 * reads a folder the same way). */
static void ingest_input(struct hg_ingest *in, const char *path)
{
	if (!hg_input_is_folder(path)) {
		ingest_file(in, path);
		return;
	}
	hg_path_list list;
	if (hg_input_list_folder(&in->ctx, path, &list) != 0) {
		struct ingest_item item = {.path = strdup(path), .reason = strdup(in->diags.last)};
		if (!item.path || !item.reason || !ingest_queue_push(&in->queue, &item))
			ingest_item_release(&item);
		return;
	}
	for (size_t i = 0; i < list.n && !ingest_queue_stopped(&in->queue); i++)
		ingest_file(in, list.paths[i]);
	/* After the reading: a file found replaced by a FIFO (or a device)
	 * when opened was skipped then, and counted in the list. */
	in->sum.skipped += list.skipped;
	in->sum.links_followed += list.links_followed;
	in->sum.links_skipped += list.links_skipped;
	hg_path_list_release(&list);
}

void *ingest_reader(void *arg)
{
	struct hg_ingest *in = arg;
	for (int i = 0; i < in->n_inputs && !ingest_queue_stopped(&in->queue); i++)
		if (hg_ingest_is_url(in->inputs[i]))
			ingest_remote(in, in->inputs[i]);
		else
			ingest_input(in, in->inputs[i]);
	ingest_queue_close(&in->queue);
	return NULL;
}

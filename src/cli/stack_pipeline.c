/* The items of hangar stack's reader-to-writer pipe (see stack_pipeline.h). */
#include "stack_pipeline.h"

void stack_item_release(void *arg)
{
	struct stack_item *item = arg;
	hg_report_destroy(item->rep);
	hg_buf_release(&item->diags);
	hg_buf_release(&item->text);
	*item = (struct stack_item){0};
}

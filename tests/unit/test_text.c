/* Text for a person (text_visible.c): every byte a terminal obeys shown as
 * git shows it in a quoted path, the columns that takes counted, prefixes
 * that never cut an escape, hangar's own colours kept only when asked, and
 * random bytes never coming out raw. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/text.h"

static char *shown(const char *s, size_t len, unsigned flags)
{
	static hg_buf b;
	hg_buf_release(&b);
	hg_buf_visible_as(&b, s, len, flags);
	assert_false(b.failed);
	return b.data ? b.data : "";
}

static void test_escapes_as_git(void **state)
{
	(void)state;
	const char hostile[] = "a\033]0;pwned\a\033[2Jb\b\x7f\t\n\r\v\f\x01z";
	assert_string_equal(shown(hostile, sizeof hostile - 1, 0),
			    "a\\033]0;pwned\\a\\033[2Jb\\b\\177\\t\\n\\r\\v\\f\\001z");
	/* a whole text keeps its lines and tabs, and CR only before LF */
	assert_string_equal(shown("x\ty\r\nz\rw\n", 9, HG_VISIBLE_LINES), "x\ty\r\nz\\rw\n");
	/* C1 controls and bidirectional overrides, byte by byte */
	assert_string_equal(shown("\xc2\x9b" "1m", 4, 0), "\\302\\2331m");
	assert_string_equal(shown("ab\xe2\x80\xae" "cd", 7, 0), "ab\\342\\200\\256cd");
	assert_string_equal(shown("\xe2\x81\xa6", 3, 0), "\\342\\201\\246");
	/* bytes that are not UTF-8; the NUL the JSON reader keeps as C0 80 */
	assert_string_equal(shown("\xff\xfe" "a\xc3", 4, 0), "\\377\\376a\\303");
	assert_string_equal(shown("n\xc0\x80", 3, 0), "n\\000");
	/* what needs nothing stays as it is: UTF-8 of every length */
	const char fine[] = "com.ex.Ünïcödé.方法(€) 𝄞 → ok";
	assert_string_equal(shown(fine, sizeof fine - 1, 0), fine);
	assert_true(hg_text_is_visible(fine, sizeof fine - 1, 0));
	assert_false(hg_text_is_visible("a\nb", 3, 0));
	assert_true(hg_text_is_visible("a\nb", 3, HG_VISIBLE_LINES));
}

static void test_colour_only_ours(void **state)
{
	(void)state;
	const char ours[] = "\033[1mbold\033[0m \033[1;31mkey\033[0m \033[33mwarn\033[0m \033[2mdim\033[0m";
	assert_string_equal(shown(ours, sizeof ours - 1, HG_VISIBLE_COLOUR), ours);
	assert_true(hg_text_is_visible(ours, sizeof ours - 1, HG_VISIBLE_COLOUR));
	/* without the flag they are escaped like any other */
	assert_string_equal(shown("\033[1mb", 5, 0), "\\033[1mb");
	/* a sequence that is not one of ours stays escaped even with colour:
	 * conceal, cursor moves, a clear, a title, a colour we never use */
	const char *theirs[] = {"\033[8m", "\033[2J", "\033[H", "\033]0;t\a", "\033[38;5;1m", "\033[1;8m",
				"\033[123m", "\033["};
	for (size_t i = 0; i < sizeof theirs / sizeof *theirs; i++) {
		const char *out = shown(theirs[i], strlen(theirs[i]), HG_VISIBLE_COLOUR);
		assert_null(strchr(out, '\033'));
		assert_true(strncmp(out, "\\033", 4) == 0);
	}
}

static void test_columns_and_prefixes(void **state)
{
	(void)state;
	assert_int_equal(hg_visible_cols("abc", 3), 3);
	assert_int_equal(hg_visible_cols("a\033b", 3), 6);     /* a \033 b */
	assert_int_equal(hg_visible_cols("a\tb", 3), 4);       /* a \t b */
	assert_int_equal(hg_visible_cols("€x", 4), 2);         /* one column a character */
	assert_int_equal(hg_visible_cols("\xc2\x9b", 2), 8);   /* \302\233 */
	assert_int_equal(hg_visible_cols("\xff", 1), 4);
	/* what hg_buf_visible writes is exactly that many columns of ASCII */
	const char mix[] = "x\033]0;\a\xe2\x80\xae\xff\x7f\xc0\x80y";
	assert_int_equal(hg_visible_cols(mix, sizeof mix - 1), strlen(shown(mix, sizeof mix - 1, 0)));
	/* prefixes end between characters and escapes, never inside one */
	size_t used;
	assert_int_equal(hg_visible_prefix("ab\033cd", 5, 4, &used), 2);
	assert_int_equal(used, 2);
	assert_int_equal(hg_visible_prefix("ab\033cd", 5, 6, &used), 3);
	assert_int_equal(used, 6);
	assert_int_equal(hg_visible_prefix("€€€", 9, 2, &used), 6);
	assert_int_equal(hg_visible_prefix("abc", 3, 10, &used), 3);
	assert_int_equal(used, 3);
}

/* Random bytes: what comes out is valid UTF-8 without one byte a terminal
 * obeys, and as many columns as hg_visible_cols said. */
static void test_random_bytes(void **state)
{
	(void)state;
	srand(25);
	char in[64];
	for (int round = 0; round < 20000; round++) {
		size_t n = (size_t)(rand() % (int)sizeof in);
		for (size_t i = 0; i < n; i++)
			in[i] = (char)(rand() % 4 == 0 ? rand() % 0x20 : rand() % 256);
		const char *out = shown(in, n, 0);
		size_t len = strlen(out);
		assert_int_equal(hg_visible_cols(in, n), hg_visible_cols(out, len));
		for (size_t i = 0; i < len;) {
			unsigned char c = (unsigned char)out[i];
			assert_true(c >= 0x20 && c != 0x7f);
			size_t k = hg_utf8_len(out + i, len - i);
			assert_true(k > 0);
			if (k == 2)
				assert_false(c == 0xc2 && (unsigned char)out[i + 1] <= 0x9f);
			i += k;
		}
		assert_true(hg_text_is_visible(out, len, 0));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes_as_git),
		cmocka_unit_test(test_colour_only_ours),
		cmocka_unit_test(test_columns_and_prefixes),
		cmocka_unit_test(test_random_bytes),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	shown("", 0, 0);
	return rc;
}

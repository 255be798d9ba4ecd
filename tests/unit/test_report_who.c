/* Who and where (report_who.c): the OS as one label whatever the format
 * wrote, the model from a build fingerprint, the device class as written;
 * and reports read from real formats carry them (Matrix machine,
 * MetricKit osVersion, an ART dump's fingerprint). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hangar/report.h"

static void check(const char *platform, const char *os, const char *device, const char *want_os,
		  const char *want_model)
{
	hg_arena *a = hg_arena_create();
	assert_non_null(a);
	hg_report rep;
	memset(&rep, 0, sizeof rep);
	rep.platform = platform;
	rep.os_version = os;
	rep.device = device;
	hg_report_who who;
	assert_int_equal(hg_report_who_of(&rep, a, &who), 0);
	if (want_os)
		assert_string_equal(who.os, want_os);
	else
		assert_null(who.os);
	if (want_model)
		assert_string_equal(who.model, want_model);
	else
		assert_null(who.model);
	hg_arena_destroy(a);
}

static void test_android_api_and_release_are_one_os(void **state)
{
	(void)state;
	/* an API level (Matrix api-level, BlockCanary, a tombstone) */
	check("android", "29", NULL, "Android 10 (API 29)", NULL);
	check("android", "33", "Pixel 7", "Android 13 (API 33)", "Pixel 7");
	check("android", "99", NULL, "API 99", NULL);
	/* a fingerprint's release: the same label as its API level */
	check("android", NULL, "google/sailfish/sailfish:10/QP1A.190711.020/5800535:user/release-keys",
	      "Android 10 (API 29)", "google sailfish");
	check("android", NULL, "google/walleye/walleye:8.1.0/OPM1.171019.011/4448085:user/release-keys",
	      "Android 8.1 (API 27)", "google walleye");
	check("android", NULL, "google/redfin/redfin:13/TQ3A.230805.001/10316531:user/release-keys",
	      "Android 13 (API 33)", "google redfin");
	check("android", NULL, "acme/x/x:42/ID/1:user/release-keys", "Android 42", "acme x");
	/* a report's own API level wins over its fingerprint's release */
	check("android", "30", "google/redfin/redfin:13/TQ3A/1:user/release-keys",
	      "Android 11 (API 30)", "google redfin");
	/* not a fingerprint: kept as written */
	check("android", NULL, "Xiaomi Mi 10", NULL, "Xiaomi Mi 10");
	check("android", NULL, "a/b", NULL, "a/b");
	check(NULL, NULL, NULL, NULL, NULL);
}

static void test_apple_os(void **state)
{
	(void)state;
	check("ios", "iPhone OS 14.5 (18E182)", "iPhone13,2", "iOS 14.5", "iPhone13,2");
	check("ios", "iOS 26.1 (25B78)", NULL, "iOS 26.1", NULL);
	check("ios", "iOS 16.3", NULL, "iOS 16.3", NULL);
	check("ios", "macOS", NULL, "macOS", NULL);
}

/* Real formats carry the fields: the reader fills what hg_report_who reads. */
static void read_first(const char *text, hg_report **out)
{
	hg_ctx ctx;
	hg_ctx_init(&ctx);
	assert_int_equal(hg_report_read_one(&ctx, "t", text, strlen(text), HG_FORMAT_AUTO, out), 0);
	assert_non_null(*out);
}

static void test_matrix_machine_and_api_level(void **state)
{
	(void)state;
	hg_report *rep;
	read_first("{\"tag\":\"Trace_EvilMethod\",\"type\":0,\"content\":{\"machine\":\"MIDDLE\","
		   "\"api-level\":31,\"model\":\"SM-G991B\",\"detail\":\"NORMAL\",\"cost\":900,"
		   "\"stack\":\"0,1048574,1,900\\n\",\"stackKey\":\"1048574|\","
		   "\"scene\":\"a.B\",\"process\":\"com.example\",\"time\":1700000000000}}",
		   &rep);
	hg_report_who who;
	assert_int_equal(hg_report_who_of(rep, rep->arena, &who), 0);
	assert_string_equal(who.device_class, "MIDDLE");
	assert_string_equal(who.os, "Android 12 (API 31)");
	assert_string_equal(who.model, "SM-G991B");
	hg_report_destroy(rep);
	/* a device name where Matrix writes a class (the custom APM JSON's
	 * "machine"): no class */
	read_first("{\"tag\":\"Trace_EvilMethod\",\"type\":0,\"content\":{\"machine\":"
		   "\"Xiaomi Mi 10\",\"detail\":\"NORMAL\",\"cost\":900,"
		   "\"stack\":\"0,1048574,1,900\\n\",\"process\":\"com.example\"}}", &rep);
	assert_int_equal(hg_report_who_of(rep, rep->arena, &who), 0);
	assert_null(who.device_class);
	hg_report_destroy(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_android_api_and_release_are_one_os),
		cmocka_unit_test(test_apple_os),
		cmocka_unit_test(test_matrix_machine_and_api_level),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

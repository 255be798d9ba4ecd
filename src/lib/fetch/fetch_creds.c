/* AWS credentials: the environment first, then the shared credentials file
 * (~/.aws/credentials or $AWS_SHARED_CREDENTIALS_FILE), section
 * [$AWS_PROFILE or default].  No credentials means anonymous requests.
 *
 * Error messages name the file and line but never quote the line: a
 * malformed line is as likely as any other to hold a secret. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch_internal.h"

#define MAX_CREDS_FILE ((size_t)1 << 20)

static void wipe_free(char *s)
{
	if (s) {
		volatile char *v = s;
		while (*v)
			*v++ = '\0';
		free(s);
	}
}

void creds_release(struct fetch_creds *c)
{
	wipe_free(c->key_id);
	wipe_free(c->secret);
	wipe_free(c->token);
	c->key_id = c->secret = c->token = NULL;
}

static char *trimmed_dup(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* Sets *slot to value (a later duplicate wins, as in the AWS CLI). */
static int set_value(char **slot, const char *v, size_t n)
{
	char *d = trimmed_dup(v, n);
	if (!d)
		return HG_ENOMEM;
	wipe_free(*slot);
	*slot = d;
	return 0;
}

static int parse_line(const char *s, size_t n, const char *profile, bool *in_section,
		      struct fetch_creds *out)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n == 0 || s[0] == '#' || s[0] == ';')
		return 0;
	if (s[0] == '[') {
		if (s[n - 1] != ']')
			return HG_EPARSE;
		char *name = trimmed_dup(s + 1, n - 2);
		if (!name)
			return HG_ENOMEM;
		*in_section = strcmp(name, profile) == 0;
		free(name);
		return 0;
	}
	const char *eq = memchr(s, '=', n);
	if (!eq || eq == s)
		return HG_EPARSE;
	if (!*in_section)
		return 0;
	size_t klen = (size_t)(eq - s);
	while (klen && isspace((unsigned char)s[klen - 1]))
		klen--;
	const char *v = eq + 1;
	size_t vlen = n - (size_t)(v - s);
	if (klen == 17 && strncmp(s, "aws_access_key_id", klen) == 0)
		return set_value(&out->key_id, v, vlen);
	if (klen == 21 && strncmp(s, "aws_secret_access_key", klen) == 0)
		return set_value(&out->secret, v, vlen);
	if (klen == 17 && strncmp(s, "aws_session_token", klen) == 0)
		return set_value(&out->token, v, vlen);
	return 0; /* region, output, ... belong to other tools */
}

int creds_parse_ini(const char *text, size_t len, const char *profile, const char *path,
		    struct fetch_creds *out, char *why, size_t why_size)
{
	memset(out, 0, sizeof *out);
	bool in_section = false;
	long line = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		line++;
		if (memchr(text + i, '\0', n)) {
			creds_release(out);
			snprintf(why, why_size, "%s:%ld: error: a NUL byte in a credentials file", path,
				 line);
			return HG_EPARSE;
		}
		int rc = parse_line(text + i, n, profile, &in_section, out);
		if (rc == HG_EPARSE) {
			creds_release(out);
			snprintf(why, why_size,
				 "%s:%ld: error: expected '[profile]' or 'name = value' "
				 "(line not shown: it may hold a secret)",
				 path, line);
			return rc;
		}
		if (rc) {
			creds_release(out);
			return rc;
		}
		i += n + 1;
	}
	if (!out->key_id != !out->secret) {
		snprintf(why, why_size,
			 "%s: error: profile '%s' has %s but not %s", path, profile,
			 out->key_id ? "aws_access_key_id" : "aws_secret_access_key",
			 out->key_id ? "aws_secret_access_key" : "aws_access_key_id");
		creds_release(out);
		return HG_EPARSE;
	}
	if (!out->key_id) /* a token alone is of no use */
		creds_release(out);
	return 0;
}

static char *env_dup(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? strdup(v) : NULL;
}

static int read_small_file(const char *path, char **text, size_t *len)
{
	*text = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? 1 : HG_EIO;
	char *buf = malloc(MAX_CREDS_FILE + 1);
	if (!buf) {
		fclose(f);
		return HG_ENOMEM;
	}
	size_t n = fread(buf, 1, MAX_CREDS_FILE + 1, f);
	int err = ferror(f);
	fclose(f);
	if (err || n > MAX_CREDS_FILE) {
		free(buf);
		return err ? HG_EIO : HG_ELIMIT;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int creds_load(struct fetch_creds *out, char *why, size_t why_size)
{
	memset(out, 0, sizeof *out);
	const char *id = getenv("AWS_ACCESS_KEY_ID"), *secret = getenv("AWS_SECRET_ACCESS_KEY");
	if (id && *id && secret && *secret) {
		out->key_id = env_dup("AWS_ACCESS_KEY_ID");
		out->secret = env_dup("AWS_SECRET_ACCESS_KEY");
		out->token = env_dup("AWS_SESSION_TOKEN");
		if (!out->key_id || !out->secret) {
			creds_release(out);
			return HG_ENOMEM;
		}
		return 0;
	}
	char path[4096];
	const char *file = getenv("AWS_SHARED_CREDENTIALS_FILE");
	if (file && *file) {
		snprintf(path, sizeof path, "%s", file);
	} else {
		const char *home = getenv("HOME");
		if (!home || !*home)
			return 0;
		snprintf(path, sizeof path, "%s/.aws/credentials", home);
	}
	const char *profile = getenv("AWS_PROFILE");
	if (!profile || !*profile)
		profile = "default";
	char *text;
	size_t len;
	int rc = read_small_file(path, &text, &len);
	if (rc == 1)
		return 0; /* no file: anonymous */
	if (rc) {
		snprintf(why, why_size, "%s: error: %s", path,
			 rc == HG_ELIMIT ? "credentials file larger than 1 MiB"
					 : "cannot read the credentials file");
		return rc;
	}
	rc = creds_parse_ini(text, len, profile, path, out, why, why_size);
	volatile char *v = text;
	for (size_t i = 0; i < len; i++)
		v[i] = '\0';
	free(text);
	return rc;
}

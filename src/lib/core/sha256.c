/* SHA-256 through OpenSSL's EVP interface.  The algorithm is fetched from
 * the provider once, not at every digest as EVP_sha256() makes OpenSSL 3 do
 * (a third of the cost of hashing a 1 KB report). */
#include <openssl/evp.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "sha256.h"

static EVP_MD *sha256_md; /* kept for the life of the process */
static pthread_once_t fetched = PTHREAD_ONCE_INIT;
/* Each thread's digest context, made once and freed when the thread ends:
 * EVP_Digest made and freed one per digest (a report is hashed two or
 * three times at ingest). */
static pthread_key_t ctx_key;
static bool have_key;

static void free_ctx(void *ctx)
{
	EVP_MD_CTX_free(ctx);
}

static void fetch(void)
{
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
	have_key = pthread_key_create(&ctx_key, free_ctx) == 0;
}

static EVP_MD_CTX *thread_ctx(void)
{
	if (!have_key)
		return NULL;
	EVP_MD_CTX *ctx = pthread_getspecific(ctx_key);
	if (!ctx && (ctx = EVP_MD_CTX_new()) && pthread_setspecific(ctx_key, ctx) != 0) {
		EVP_MD_CTX_free(ctx);
		ctx = NULL;
	}
	return ctx;
}

void hg_sha256(const void *data, size_t len, unsigned char out[32])
{
	pthread_once(&fetched, fetch);
	unsigned int n = 0;
	const EVP_MD *md = sha256_md ? sha256_md : EVP_sha256();
	EVP_MD_CTX *ctx = thread_ctx();
	bool ok = ctx ? EVP_DigestInit_ex(ctx, md, NULL) == 1 && EVP_DigestUpdate(ctx, data, len) == 1 &&
			      EVP_DigestFinal_ex(ctx, out, &n) == 1
		      : EVP_Digest(data, len, out, &n, md, NULL) == 1;
	if (!ok || n != 32)
		memset(out, 0, 32); /* cannot happen with a working libcrypto */
}

void hg_hex_digest(const unsigned char *md, size_t bytes, char *out)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < bytes; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[2 * bytes] = '\0';
}

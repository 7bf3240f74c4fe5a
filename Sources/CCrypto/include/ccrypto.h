#ifndef CCRYPTO_H
#define CCRYPTO_H
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <dlfcn.h>
#include <pthread.h>

// libcrypto is loaded on first use (dlopen), not at process start: `capture` must be on disk
// within a few milliseconds and never hashes anything, while loading libcrypto binds thousands
// of symbols. Random bytes come from getrandom(2), so an unhashed run never loads it.

typedef struct {
    int ok;
    EVP_MD *(*md_fetch)(OSSL_LIB_CTX *, const char *, const char *);
    int (*digest)(const void *, size_t, unsigned char *, unsigned int *, const EVP_MD *, ENGINE *);
    EVP_MD *sha256;
    int (*sha256_init)(SHA256_CTX *);
    int (*sha256_update)(SHA256_CTX *, const void *, size_t);
    int (*sha256_final)(unsigned char *, SHA256_CTX *);
    EVP_MD_CTX *(*ctx_new)(void);
    void (*ctx_free)(EVP_MD_CTX *);
    int (*init)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
    int (*update)(EVP_MD_CTX *, const void *, size_t);
    int (*final)(EVP_MD_CTX *, unsigned char *, unsigned int *);
} ccrypto_api_t;

/// The one table of `ccrypto`, defined in ccrypto.c: a `static` inside this header would give
/// every object file its own, never-filled copy (release builds split a module into several).
extern ccrypto_api_t ccrypto_api_table;
static inline ccrypto_api_t *ccrypto_api_storage(void) { return &ccrypto_api_table; }


/// Loads libcrypto once per process; 0 when libcrypto.so.3 is missing.
int ccrypto_load(void);

/// SHA-256 of `count` bytes into `out` (32 bytes); 0 on failure.
static inline int ccrypto_sha256(const void *bytes, size_t count, unsigned char *out) {
    if (!ccrypto_load()) return 0;
    ccrypto_api_t *a = ccrypto_api_storage();
    if (a->sha256_init) {
        SHA256_CTX ctx;
        return a->sha256_init(&ctx) && a->sha256_update(&ctx, bytes, count) && a->sha256_final(out, &ctx);
    }
    unsigned int length = 0;
    return ccrypto_api_storage()->digest(bytes, count, out, &length, ccrypto_api_storage()->sha256, NULL);
}

/// A SHA-256 context for incremental hashing; NULL on failure. Free with ccrypto_sha256_free.
static inline EVP_MD_CTX *ccrypto_sha256_new(void) {
    if (!ccrypto_load()) return NULL;
    ccrypto_api_t *a = ccrypto_api_storage();
    EVP_MD_CTX *ctx = a->ctx_new();
    if (ctx && a->init(ctx, a->sha256, NULL) != 1) { a->ctx_free(ctx); return NULL; }
    return ctx;
}

static inline int ccrypto_sha256_update(EVP_MD_CTX *ctx, const void *bytes, size_t count) {
    return ccrypto_api_storage()->update(ctx, bytes, count);
}

static inline int ccrypto_sha256_final(EVP_MD_CTX *ctx, unsigned char *out) {
    unsigned int length = 0;
    return ccrypto_api_storage()->final(ctx, out, &length);
}

static inline void ccrypto_sha256_free(EVP_MD_CTX *ctx) { ccrypto_api_storage()->ctx_free(ctx); }

#endif

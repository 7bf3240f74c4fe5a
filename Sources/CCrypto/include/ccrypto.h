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
    int (*sha256_init)(SHA256_CTX *);
    int (*sha256_update)(SHA256_CTX *, const void *, size_t);
    int (*sha256_final)(unsigned char *, SHA256_CTX *);
    // The EVP fallback (see ccrypto.c), filled only when the three above are missing.
    EVP_MD *(*md_fetch)(OSSL_LIB_CTX *, const char *, const char *);
    EVP_MD *sha256;
    EVP_MD_CTX *(*ctx_new)(void);
    void (*ctx_free)(EVP_MD_CTX *);
    int (*init)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
    int (*update)(EVP_MD_CTX *, const void *, size_t);
    int (*final)(EVP_MD_CTX *, unsigned char *, unsigned int *);
} ccrypto_api_t;
/// The one table of `ccrypto`, defined in ccrypto.c.
extern ccrypto_api_t ccrypto_api_table;
/// Loads libcrypto once per process; 0 when libcrypto.so.3 is missing.
int ccrypto_load(void);
/// SHA-256 of `count` bytes into `out` (32 bytes); 0 on failure.
int ccrypto_sha256(const void *bytes, size_t count, unsigned char *out);
/// A SHA-256 computed in parts (a file hashed while it is streamed): the low-level context, or
/// an EVP one when `evp` is set.
typedef struct {
    SHA256_CTX low;
    EVP_MD_CTX *evp;
} ccrypto_sha256_ctx;
/// NULL on failure. Free with ccrypto_sha256_free.
ccrypto_sha256_ctx *ccrypto_sha256_new(void);
/// 1 on success.
int ccrypto_sha256_update(ccrypto_sha256_ctx *ctx, const void *bytes, size_t count);
/// Writes the 32-byte digest to `out`; 1 on success. The context is spent after this.
int ccrypto_sha256_final(ccrypto_sha256_ctx *ctx, unsigned char *out);
void ccrypto_sha256_free(ccrypto_sha256_ctx *ctx);
#endif

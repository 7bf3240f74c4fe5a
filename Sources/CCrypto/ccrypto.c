#include "ccrypto.h"
#include <stdlib.h>

ccrypto_api_t ccrypto_api_table;

/// Looks `name` up in `handle` into the table's `field`; 1 when it was found. An int, so that `&`
/// looks every symbol up (`&&` would stop at the first one missing).
#define CCRYPTO_SYM(handle, field, name) (int)((*(void **)&ccrypto_api_table.field = dlsym(handle, name)) != NULL)

static void ccrypto_load_once(void) {
    ccrypto_api_t *a = &ccrypto_api_table;
    void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    // SHA256_Init/Update/Final run the CPU's SHA instructions with no setup. The EVP interface
    // first initialises OpenSSL's library context and default provider (reading openssl.cnf),
    // which costs a run about a millisecond and 2 MB of memory: it is used only when a libcrypto
    // no longer exports the low-level functions (deprecated in 3.0, still exported by 3.x).
    if (CCRYPTO_SYM(h, sha256_init, "SHA256_Init") & CCRYPTO_SYM(h, sha256_update, "SHA256_Update")
        & CCRYPTO_SYM(h, sha256_final, "SHA256_Final")) {
        a->ok = 1;
        return;
    }
    a->sha256_init = NULL;
    int ok = CCRYPTO_SYM(h, md_fetch, "EVP_MD_fetch")
        & CCRYPTO_SYM(h, ctx_new, "EVP_MD_CTX_new") & CCRYPTO_SYM(h, ctx_free, "EVP_MD_CTX_free")
        & CCRYPTO_SYM(h, init, "EVP_DigestInit_ex") & CCRYPTO_SYM(h, update, "EVP_DigestUpdate")
        & CCRYPTO_SYM(h, final, "EVP_DigestFinal_ex");
    if (!ok) return;
    // Fetched once: OpenSSL 3 otherwise looks the algorithm up on every digest.
    a->sha256 = a->md_fetch(NULL, "SHA256", NULL);
    a->ok = a->sha256 != NULL;
}

#undef CCRYPTO_SYM

int ccrypto_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ccrypto_load_once);
    return ccrypto_api_table.ok;
}

ccrypto_sha256_ctx *ccrypto_sha256_new(void) {
    if (!ccrypto_load()) return NULL;
    ccrypto_api_t *a = &ccrypto_api_table;
    ccrypto_sha256_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return NULL;
    if (a->sha256_init) {
        if (a->sha256_init(&ctx->low)) return ctx;
    } else if ((ctx->evp = a->ctx_new()) && a->init(ctx->evp, a->sha256, NULL) == 1) {
        return ctx;
    }
    ccrypto_sha256_free(ctx);
    return NULL;
}

int ccrypto_sha256_update(ccrypto_sha256_ctx *ctx, const void *bytes, size_t count) {
    ccrypto_api_t *a = &ccrypto_api_table;
    return ctx->evp ? a->update(ctx->evp, bytes, count) : a->sha256_update(&ctx->low, bytes, count);
}

int ccrypto_sha256_final(ccrypto_sha256_ctx *ctx, unsigned char *out) {
    ccrypto_api_t *a = &ccrypto_api_table;
    unsigned int length = 0;
    return ctx->evp ? a->final(ctx->evp, out, &length) : a->sha256_final(out, &ctx->low);
}

void ccrypto_sha256_free(ccrypto_sha256_ctx *ctx) {
    if (!ctx) return;
    if (ctx->evp) ccrypto_api_table.ctx_free(ctx->evp);
    free(ctx);
}

int ccrypto_sha256(const void *bytes, size_t count, unsigned char *out) {
    if (!ccrypto_load()) return 0;
    ccrypto_api_t *a = &ccrypto_api_table;
    if (a->sha256_init) {
        SHA256_CTX ctx;
        return a->sha256_init(&ctx) && a->sha256_update(&ctx, bytes, count) && a->sha256_final(out, &ctx);
    }
    ccrypto_sha256_ctx *ctx = ccrypto_sha256_new();
    int ok = ctx && ccrypto_sha256_update(ctx, bytes, count) == 1 && ccrypto_sha256_final(ctx, out) == 1;
    ccrypto_sha256_free(ctx);
    return ok;
}

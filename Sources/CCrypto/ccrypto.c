#include "ccrypto.h"

ccrypto_api_t ccrypto_api_table;

/// Looks `name` up in `handle` into the table's `field`; 1 when it was found. An int, so that `&`
/// looks every symbol up (`&&` would stop at the first one missing).
#define CCRYPTO_SYM(handle, field, name) (int)((*(void **)&ccrypto_api_table.field = dlsym(handle, name)) != NULL)

static void ccrypto_load_once(void) {
    ccrypto_api_t *a = &ccrypto_api_table;
    void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    int ok = CCRYPTO_SYM(h, md_fetch, "EVP_MD_fetch") & CCRYPTO_SYM(h, digest, "EVP_Digest")
        // Incremental hashing, for files streamed in blocks (a multi-GB health export).
        & CCRYPTO_SYM(h, ctx_new, "EVP_MD_CTX_new") & CCRYPTO_SYM(h, ctx_free, "EVP_MD_CTX_free")
        & CCRYPTO_SYM(h, init, "EVP_DigestInit_ex") & CCRYPTO_SYM(h, update, "EVP_DigestUpdate")
        & CCRYPTO_SYM(h, final, "EVP_DigestFinal_ex");
    // For the short inputs hashed here (keys, versions), SHA256_Init/Update/Final with the
    // context on the stack: EVP_Digest allocates a context per call, and SHA256() in OpenSSL 3
    // fetches the algorithm by name on every call (EVP_Q_digest). Deprecated in 3.0, still
    // exported by libcrypto.so.3. Optional: without all three, EVP_Digest hashes them.
    int stack_context = CCRYPTO_SYM(h, sha256_init, "SHA256_Init") & CCRYPTO_SYM(h, sha256_update, "SHA256_Update")
        & CCRYPTO_SYM(h, sha256_final, "SHA256_Final");
    if (!stack_context) a->sha256_init = NULL;
    if (!ok) return;
    // Fetched once: OpenSSL 3 otherwise looks the algorithm up on every EVP_Digest call.
    a->sha256 = a->md_fetch(NULL, "SHA256", NULL);
    a->ok = a->sha256 != NULL;
}

#undef CCRYPTO_SYM

int ccrypto_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ccrypto_load_once);
    return ccrypto_api_table.ok;
}

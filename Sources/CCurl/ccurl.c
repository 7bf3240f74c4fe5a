#include "ccurl.h"

ccurl_api_t ccurl_api_table;

/// Looks `name` up in `handle` into the table's `field`; 1 when it was found. An int, so that `&`
/// looks every symbol up (`&&` would stop at the first one missing).
#define CCURL_SYM(handle, field, name) (int)((*(void **)&ccurl_api_table.field = dlsym(handle, name)) != NULL)

static void ccurl_load_once(void) {
    ccurl_api_t *a = &ccurl_api_table;
    void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    int ok = CCURL_SYM(h, global_init, "curl_global_init") & CCURL_SYM(h, easy_init, "curl_easy_init")
        & CCURL_SYM(h, easy_cleanup, "curl_easy_cleanup") & CCURL_SYM(h, easy_perform, "curl_easy_perform")
        & CCURL_SYM(h, easy_setopt, "curl_easy_setopt") & CCURL_SYM(h, easy_getinfo, "curl_easy_getinfo")
        & CCURL_SYM(h, easy_strerror, "curl_easy_strerror") & CCURL_SYM(h, slist_append, "curl_slist_append")
        & CCURL_SYM(h, slist_free_all, "curl_slist_free_all") & CCURL_SYM(h, getdate, "curl_getdate");
    if (!ok) return;
    a->global_init(CURL_GLOBAL_DEFAULT);   // once, before any handle, as libcurl requires
    a->ok = 1;
}

#undef CCURL_SYM

int ccurl_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ccurl_load_once);
    return ccurl_api_table.ok;
}

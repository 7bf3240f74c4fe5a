#include "ccurl.h"

ccurl_api_t ccurl_api_table;
static void ccurl_load_once(void) {
    ccurl_api_t *a = ccurl_api_storage();
    void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    a->global_init = (CURLcode (*)(long))dlsym(h, "curl_global_init");
    a->easy_init = (CURL *(*)(void))dlsym(h, "curl_easy_init");
    a->easy_cleanup = (void (*)(CURL *))dlsym(h, "curl_easy_cleanup");
    a->easy_perform = (CURLcode (*)(CURL *))dlsym(h, "curl_easy_perform");
    a->easy_setopt = (CURLcode (*)(CURL *, CURLoption, ...))dlsym(h, "curl_easy_setopt");
    a->easy_getinfo = (CURLcode (*)(CURL *, CURLINFO, ...))dlsym(h, "curl_easy_getinfo");
    a->easy_strerror = (const char *(*)(CURLcode))dlsym(h, "curl_easy_strerror");
    a->slist_append = (struct curl_slist *(*)(struct curl_slist *, const char *))dlsym(h, "curl_slist_append");
    a->slist_free_all = (void (*)(struct curl_slist *))dlsym(h, "curl_slist_free_all");
    a->getdate = (time_t (*)(const char *, const time_t *))dlsym(h, "curl_getdate");
    a->ok = a->global_init && a->easy_init && a->easy_cleanup && a->easy_perform && a->easy_setopt && a->easy_getinfo
        && a->easy_strerror && a->slist_append && a->slist_free_all && a->getdate;
    if (a->ok) a->global_init(CURL_GLOBAL_DEFAULT);   // once, before any handle, as libcurl requires
}

int ccurl_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ccurl_load_once);
    return ccurl_api_storage()->ok;
}

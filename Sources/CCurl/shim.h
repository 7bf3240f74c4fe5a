#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// libcurl is loaded on first use (dlopen), not at process start: its dependency chain
// (TLS, Kerberos, LDAP, …) costs ~4 ms of loading on every start, and most commands
// (`capture` up to durable, `status`, runs against the embedded node) never talk HTTP.
//
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; the typed
// wrappers below are the only way Swift reaches them.

typedef struct {
    int ok;
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    time_t (*getdate)(const char *, const time_t *);
} ccurl_api_t;

static inline ccurl_api_t *ccurl_api_storage(void) { static ccurl_api_t api; return &api; }

static inline void ccurl_load_once(void) {
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

/// Loads libcurl once per process; 0 when libcurl.so.4 is missing.
static inline int ccurl_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ccurl_load_once);
    return ccurl_api_storage()->ok;
}

static inline CURL *ccurl_easy_init(void) { return ccurl_load() ? ccurl_api_storage()->easy_init() : NULL; }
static inline void ccurl_easy_cleanup(CURL *h) { ccurl_api_storage()->easy_cleanup(h); }
static inline CURLcode ccurl_easy_perform(CURL *h) { return ccurl_api_storage()->easy_perform(h); }
static inline const char *ccurl_easy_strerror(CURLcode c) { return ccurl_api_storage()->easy_strerror(c); }
static inline struct curl_slist *ccurl_slist_append(struct curl_slist *l, const char *s) { return ccurl_api_storage()->slist_append(l, s); }
static inline void ccurl_slist_free_all(struct curl_slist *l) { ccurl_api_storage()->slist_free_all(l); }
static inline time_t ccurl_getdate(const char *s) { return ccurl_load() ? ccurl_api_storage()->getdate(s, NULL) : -1; }

static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) { return ccurl_api_storage()->easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_string(CURL *h, CURLoption o, const char *v) { return ccurl_api_storage()->easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_pointer(CURL *h, CURLoption o, void *v) { return ccurl_api_storage()->easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return ccurl_api_storage()->easy_setopt(h, o, v); }
typedef size_t (*ccurl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode ccurl_setopt_write(CURL *h, CURLoption o, ccurl_write_callback cb) { return ccurl_api_storage()->easy_setopt(h, o, cb); }
static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *v) { return ccurl_api_storage()->easy_getinfo(h, i, v); }

#ifndef CCURL_H
#define CCURL_H
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// libcurl is loaded on first use (dlopen), not at process start: its dependency chain
// (TLS, Kerberos, LDAP, …) would be loaded on every start, and most commands
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

/// The one table of `ccurl`, defined in ccurl.c: a `static` inside this header would give
/// every object file its own, never-filled copy (release builds split a module into several).
extern ccurl_api_t ccurl_api_table;
static inline ccurl_api_t *ccurl_api_storage(void) { return &ccurl_api_table; }


/// Loads libcurl once per process; 0 when libcurl.so.4 is missing.
int ccurl_load(void);

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

#endif

#include "csecret.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// The few GLib and libsecret types used, declared here so no GLib header is needed to build.
typedef struct { unsigned int domain; int code; char *message; } GError;
typedef struct GList { void *data; struct GList *next, *prev; } GList;
enum { SECRET_SERVICE_OPEN_SESSION = 1 << 1, SECRET_SEARCH_LOAD_SECRETS = 1 << 3 };

typedef struct {
    int ok;
    void *(*hash_table_new)(unsigned int (*)(const void *), int (*)(const void *, const void *));
    int (*hash_table_insert)(void *, void *, void *);
    void (*hash_table_unref)(void *);
    unsigned int (*str_hash)(const void *);
    int (*str_equal)(const void *, const void *);
    void (*error_free)(GError *);
    void (*list_free_full)(GList *, void (*)(void *));
    void (*object_unref)(void *);
    void *(*cancellable_new)(void);
    void (*cancellable_cancel)(void *);
    void *(*service_get_sync)(int, void *, GError **);
    void *(*collection_for_alias_sync)(void *, const char *, int, void *, GError **);
    int (*collection_get_locked)(void *);
    GList *(*service_search_sync)(void *, const void *, void *, int, void *, GError **);
    int (*item_get_locked)(void *);
    void *(*item_get_secret)(void *);
    const char *(*value_get_text)(void *);
    void *(*value_new)(const char *, long, const char *);
    void (*value_unref)(void *);
    int (*service_store_sync)(void *, const void *, void *, const char *, const char *, void *, void *, GError **);
    int (*service_clear_sync)(void *, const void *, void *, void *, GError **);
} csecret_api_t;

static csecret_api_t api;

/// Looks `name` up in `handle` into the table's `field`; 1 when it was found. An int, so that `&`
/// looks every symbol up (`&&` would stop at the first one missing).
#define CSECRET_SYM(handle, field, name) (int)((*(void **)&api.field = dlsym(handle, name)) != NULL)

static void csecret_load_once(void) {
    void *h = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    // dlsym on libsecret's handle also finds the GLib and GIO symbols it depends on.
    int ok = CSECRET_SYM(h, hash_table_new, "g_hash_table_new") & CSECRET_SYM(h, hash_table_insert, "g_hash_table_insert")
        & CSECRET_SYM(h, hash_table_unref, "g_hash_table_unref") & CSECRET_SYM(h, str_hash, "g_str_hash") & CSECRET_SYM(h, str_equal, "g_str_equal")
        & CSECRET_SYM(h, error_free, "g_error_free") & CSECRET_SYM(h, list_free_full, "g_list_free_full") & CSECRET_SYM(h, object_unref, "g_object_unref")
        & CSECRET_SYM(h, cancellable_new, "g_cancellable_new") & CSECRET_SYM(h, cancellable_cancel, "g_cancellable_cancel")
        & CSECRET_SYM(h, service_get_sync, "secret_service_get_sync") & CSECRET_SYM(h, collection_for_alias_sync, "secret_collection_for_alias_sync")
        & CSECRET_SYM(h, collection_get_locked, "secret_collection_get_locked") & CSECRET_SYM(h, service_search_sync, "secret_service_search_sync")
        & CSECRET_SYM(h, item_get_locked, "secret_item_get_locked") & CSECRET_SYM(h, item_get_secret, "secret_item_get_secret")
        & CSECRET_SYM(h, value_get_text, "secret_value_get_text") & CSECRET_SYM(h, value_new, "secret_value_new") & CSECRET_SYM(h, value_unref, "secret_value_unref")
        & CSECRET_SYM(h, service_store_sync, "secret_service_store_sync") & CSECRET_SYM(h, service_clear_sync, "secret_service_clear_sync");
    if (!ok) return;
    api.ok = 1;
}

#undef CSECRET_SYM

static int csecret_available(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, csecret_load_once);
    return api.ok;
}

// MARK: - One call on its own thread, with a deadline

enum { OP_LOOKUP, OP_STORE, OP_CLEAR };

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t finished;
    int done, refs;               // refs: the caller's and the worker's; the last one frees
    int op;
    char *node, *kind, *label, *secret;
    void *cancellable;
    int status;
    char *value, *message;
} job_t;

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

void csecret_free(char *text) {
    if (!text) return;
    volatile char *p = text;
    while (*p) *p++ = 0;
    free(text);
}

static void job_release(job_t *j) {
    pthread_mutex_lock(&j->lock);
    int left = --j->refs;
    pthread_mutex_unlock(&j->lock);
    if (left > 0) return;
    free(j->node); free(j->kind); free(j->label); csecret_free(j->secret); csecret_free(j->value); free(j->message);
    if (j->cancellable) api.object_unref(j->cancellable);
    pthread_mutex_destroy(&j->lock); pthread_cond_destroy(&j->finished);
    free(j);
}

static int fail_with(job_t *j, int status, GError *error) {
    if (error) { j->message = dup_or_null(error->message); api.error_free(error); }
    return status;
}

static void *attributes(job_t *j) {
    void *table = api.hash_table_new(api.str_hash, api.str_equal);
    api.hash_table_insert(table, "application", "hearthloom-ingest");
    api.hash_table_insert(table, "node", j->node);
    api.hash_table_insert(table, "kind", j->kind);
    return table;
}

/// 1 when the default collection is open; else sets the job's status (locked or missing).
static int default_collection_open(job_t *j, void *service) {
    GError *error = NULL;
    void *collection = api.collection_for_alias_sync(service, "default", 0, j->cancellable, &error);
    if (!collection) {
        j->status = error ? fail_with(j, CSECRET_FAILED, error) : CSECRET_LOCKED;
        if (!j->message) j->message = strdup("the keyring has no default collection");
        return 0;
    }
    int locked = api.collection_get_locked(collection);
    api.object_unref(collection);
    if (locked) { j->status = CSECRET_LOCKED; return 0; }
    return 1;
}

static int lookup(job_t *j, void *service, void *attrs) {
    GError *error = NULL;
    GList *items = api.service_search_sync(service, NULL, attrs, SECRET_SEARCH_LOAD_SECRETS, j->cancellable, &error);
    if (error) return fail_with(j, CSECRET_FAILED, error);
    int status = CSECRET_NOT_FOUND;
    for (GList *i = items; i && status != CSECRET_OK; i = i->next) {
        if (api.item_get_locked(i->data)) { status = CSECRET_LOCKED; continue; }
        void *value = api.item_get_secret(i->data);
        if (!value) continue;
        const char *text = api.value_get_text(value);
        if (text) { j->value = strdup(text); status = CSECRET_OK; }
        api.value_unref(value);
    }
    if (items) api.list_free_full(items, api.object_unref);
    // An item may sit in a locked collection the search could not see into.
    if (status == CSECRET_NOT_FOUND && !default_collection_open(j, service)) return j->status;
    return status;
}

static int store(job_t *j, void *service, void *attrs) {
    if (!default_collection_open(j, service)) return j->status;
    GError *error = NULL;
    void *value = api.value_new(j->secret, -1, "text/plain");
    int stored = api.service_store_sync(service, NULL, attrs, "default", j->label, value, j->cancellable, &error);
    api.value_unref(value);
    return stored ? CSECRET_OK : fail_with(j, CSECRET_FAILED, error);
}

static int clear(job_t *j, void *service, void *attrs) {
    if (!default_collection_open(j, service)) return j->status;
    GError *error = NULL;
    api.service_clear_sync(service, NULL, attrs, j->cancellable, &error);   // FALSE also means "nothing to clear"
    return error ? fail_with(j, CSECRET_FAILED, error) : CSECRET_OK;
}

static void *job_run(void *arg) {
    job_t *j = arg;
    GError *error = NULL;
    void *service = api.service_get_sync(SECRET_SERVICE_OPEN_SESSION, j->cancellable, &error);
    int status;
    if (!service) {
        status = fail_with(j, CSECRET_UNAVAILABLE, error);
    } else {
        void *attrs = attributes(j);
        status = j->op == OP_LOOKUP ? lookup(j, service, attrs) : j->op == OP_STORE ? store(j, service, attrs) : clear(j, service, attrs);
        api.hash_table_unref(attrs);
        api.object_unref(service);
    }
    pthread_mutex_lock(&j->lock);
    j->status = status;
    j->done = 1;
    pthread_cond_signal(&j->finished);
    pthread_mutex_unlock(&j->lock);
    job_release(j);
    return NULL;
}

/// Waits for `j` until `timeout_ms` has passed; then cancels it and waits a little longer.
static int wait_for(job_t *j, int timeout_ms) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    for (int round = 0; round < 2; round++) {
        long ms = round == 0 ? timeout_ms : 500;
        deadline.tv_sec += ms / 1000;
        deadline.tv_nsec += (ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) { deadline.tv_sec++; deadline.tv_nsec -= 1000000000L; }
        pthread_mutex_lock(&j->lock);
        while (!j->done && pthread_cond_timedwait(&j->finished, &j->lock, &deadline) != ETIMEDOUT) {}
        int done = j->done;
        pthread_mutex_unlock(&j->lock);
        if (done) return round == 0 ? j->status : CSECRET_TIMEOUT;
        api.cancellable_cancel(j->cancellable);
    }
    return CSECRET_TIMEOUT;   // still running: it frees the job itself when it returns
}

static int run_job(int op, const char *node, const char *kind, const char *label, const char *secret,
                   int timeout_ms, char **value, char **message) {
    if (message) *message = NULL;
    if (value) *value = NULL;
    if (!csecret_available()) {
        if (message) *message = strdup("libsecret-1.so.0 is not installed (apt install libsecret-1-0)");
        return CSECRET_UNAVAILABLE;
    }
    job_t *j = calloc(1, sizeof *j);
    if (!j) return CSECRET_FAILED;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->finished, NULL);
    j->refs = 2; j->op = op;
    j->node = strdup(node); j->kind = strdup(kind); j->label = dup_or_null(label); j->secret = dup_or_null(secret);
    j->cancellable = api.cancellable_new();
    pthread_t thread;
    if (pthread_create(&thread, NULL, job_run, j) != 0) { j->refs = 1; job_release(j); return CSECRET_FAILED; }
    pthread_detach(thread);
    int status = wait_for(j, timeout_ms);
    if (status != CSECRET_TIMEOUT) {
        if (value) { *value = j->value; j->value = NULL; }
        if (message) { *message = j->message; j->message = NULL; }
    }
    job_release(j);
    return status;
}

int csecret_lookup(const char *node, const char *kind, int timeout_ms, char **secret, char **message) {
    return run_job(OP_LOOKUP, node, kind, NULL, NULL, timeout_ms, secret, message);
}

int csecret_store(const char *node, const char *kind, const char *label, const char *secret, int timeout_ms, char **message) {
    return run_job(OP_STORE, node, kind, label, secret, timeout_ms, NULL, message);
}

int csecret_clear(const char *node, const char *kind, int timeout_ms, char **message) {
    return run_job(OP_CLEAR, node, kind, NULL, NULL, timeout_ms, NULL, message);
}

#include <systemd/sd-id128.h>
#include <systemd/sd-daemon.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>

// libsystemd is loaded on first use (dlopen): with its compression and crypto dependencies it
// costs ~0.5 ms at every start, and only talking to a node (the device id) or running under
// systemd (sd_notify) needs it. Without libsystemd these calls report failure (-ENOSYS style).

typedef struct {
    int ok;
    int (*app_specific)(sd_id128_t, sd_id128_t *);
    int (*notify)(int, const char *);
    int (*watchdog_enabled)(int, uint64_t *);
} csystemd_api_t;

static inline csystemd_api_t *csystemd_api_storage(void) { static csystemd_api_t api; return &api; }

static inline void csystemd_load_once(void) {
    csystemd_api_t *a = csystemd_api_storage();
    void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    a->app_specific = (int (*)(sd_id128_t, sd_id128_t *))dlsym(h, "sd_id128_get_machine_app_specific");
    a->notify = (int (*)(int, const char *))dlsym(h, "sd_notify");
    a->watchdog_enabled = (int (*)(int, uint64_t *))dlsym(h, "sd_watchdog_enabled");
    a->ok = a->app_specific && a->notify && a->watchdog_enabled;
}

static inline int csystemd_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, csystemd_load_once);
    return csystemd_api_storage()->ok;
}

static inline int csystemd_machine_app_specific(sd_id128_t app, sd_id128_t *out) {
    return csystemd_load() ? csystemd_api_storage()->app_specific(app, out) : -38;
}
static inline int csystemd_notify(const char *state) {
    return csystemd_load() ? csystemd_api_storage()->notify(0, state) : -38;
}
static inline int csystemd_watchdog_enabled(uint64_t *usec) {
    return csystemd_load() ? csystemd_api_storage()->watchdog_enabled(0, usec) : -38;
}

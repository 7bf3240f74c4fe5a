#ifndef CSYSTEMD_H
#define CSYSTEMD_H
#include <systemd/sd-id128.h>
#include <systemd/sd-daemon.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>

// libsystemd is loaded on first use (dlopen): its compression and crypto dependencies would
// be loaded at every start, and only talking to a node (the device id) or running under
// systemd (sd_notify) needs it. Without libsystemd these calls report failure (-ENOSYS style).

typedef struct {
    int ok;
    int (*app_specific)(sd_id128_t, sd_id128_t *);
    int (*notify)(int, const char *);
    int (*watchdog_enabled)(int, uint64_t *);
} csystemd_api_t;

/// The one table of `csystemd`, defined in csystemd.c: a `static` inside this header would give
/// every object file its own, never-filled copy (release builds split a module into several).
extern csystemd_api_t csystemd_api_table;
static inline csystemd_api_t *csystemd_api_storage(void) { return &csystemd_api_table; }


int csystemd_load(void);

static inline int csystemd_machine_app_specific(sd_id128_t app, sd_id128_t *out) {
    return csystemd_load() ? csystemd_api_storage()->app_specific(app, out) : -38;
}
static inline int csystemd_notify(const char *state) {
    return csystemd_load() ? csystemd_api_storage()->notify(0, state) : -38;
}
static inline int csystemd_watchdog_enabled(uint64_t *usec) {
    return csystemd_load() ? csystemd_api_storage()->watchdog_enabled(0, usec) : -38;
}

#endif

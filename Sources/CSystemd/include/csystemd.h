#ifndef CSYSTEMD_H
#define CSYSTEMD_H
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

// MARK: - sd-bus (the mpris, focus and geoclue adapters)
// A second table, loaded on the first bus call, so the cost stays with `watch`/`run` of an adapter
// on the bus. Only the non-variadic message API: Swift cannot call C variadic functions.
#include <systemd/sd-bus.h>

typedef struct {
    int ok;
    int (*open_user)(sd_bus **);
    int (*open_system)(sd_bus **);
    sd_bus *(*flush_close_unref)(sd_bus *);
    int (*get_fd)(sd_bus *);
    int (*get_events)(sd_bus *);
    int (*process)(sd_bus *, sd_bus_message **);
    int (*add_match)(sd_bus *, sd_bus_slot **, const char *, sd_bus_message_handler_t, void *);
    int (*call)(sd_bus *, sd_bus_message *, uint64_t, sd_bus_error *, sd_bus_message **);
    void (*error_free)(sd_bus_error *);
    int (*new_method_call)(sd_bus *, sd_bus_message **, const char *, const char *, const char *, const char *);
    int (*append_basic)(sd_bus_message *, char, const void *);
    int (*open_container)(sd_bus_message *, char, const char *);
    int (*close_container)(sd_bus_message *);
    int (*send)(sd_bus *, sd_bus_message *, uint64_t *);
    int (*get_reply_cookie)(sd_bus_message *, uint64_t *);
    const sd_bus_error *(*get_error)(sd_bus_message *);
    sd_bus_message *(*message_unref)(sd_bus_message *);
    int (*get_type)(sd_bus_message *, uint8_t *);
    const char *(*get_member)(sd_bus_message *);
    const char *(*get_interface)(sd_bus_message *);
    const char *(*get_path)(sd_bus_message *);
    const char *(*get_sender)(sd_bus_message *);
    int (*peek_type)(sd_bus_message *, char *, const char **);
    int (*read_basic)(sd_bus_message *, char, void *);
    int (*enter_container)(sd_bus_message *, char, const char *);
    int (*exit_container)(sd_bus_message *);
    int (*skip)(sd_bus_message *, const char *);
} csdbus_api_t;

/// The one table of `csdbus`, defined in csystemd.c: a `static` inside this header would give
/// every object file its own, never-filled copy (release builds split a module into several).
extern csdbus_api_t csdbus_api_table;
static inline csdbus_api_t *csdbus_api_storage(void) { return &csdbus_api_table; }


/// The sd-bus table, or NULL when libsystemd (or one of its bus calls) is missing.
const csdbus_api_t *csdbus(void);

#endif

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

// MARK: - sd-bus (the mpris adapter)
// A second table, loaded on the first bus call, so the cost stays with `watch`/`run` of an mpris
// adapter. Only the non-variadic message API: Swift cannot call C variadic functions.
#include <systemd/sd-bus.h>

typedef struct {
    int ok;
    int (*open_user)(sd_bus **);
    sd_bus *(*flush_close_unref)(sd_bus *);
    int (*get_fd)(sd_bus *);
    int (*get_events)(sd_bus *);
    int (*process)(sd_bus *, sd_bus_message **);
    int (*add_match)(sd_bus *, sd_bus_slot **, const char *, sd_bus_message_handler_t, void *);
    int (*call)(sd_bus *, sd_bus_message *, uint64_t, sd_bus_error *, sd_bus_message **);
    void (*error_free)(sd_bus_error *);
    int (*new_method_call)(sd_bus *, sd_bus_message **, const char *, const char *, const char *, const char *);
    int (*append_basic)(sd_bus_message *, char, const void *);
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

static inline csdbus_api_t *csdbus_api_storage(void) { static csdbus_api_t api; return &api; }

#define CSDBUS_SYM(field, name) (*(void **)(&a->field) = dlsym(h, name), a->field != NULL)
static inline void csdbus_load_once(void) {
    csdbus_api_t *a = csdbus_api_storage();
    void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    a->ok = CSDBUS_SYM(open_user, "sd_bus_open_user") & CSDBUS_SYM(flush_close_unref, "sd_bus_flush_close_unref")
        & CSDBUS_SYM(get_fd, "sd_bus_get_fd") & CSDBUS_SYM(get_events, "sd_bus_get_events")
        & CSDBUS_SYM(process, "sd_bus_process") & CSDBUS_SYM(add_match, "sd_bus_add_match")
        & CSDBUS_SYM(call, "sd_bus_call")
        & CSDBUS_SYM(error_free, "sd_bus_error_free") & CSDBUS_SYM(new_method_call, "sd_bus_message_new_method_call")
        & CSDBUS_SYM(append_basic, "sd_bus_message_append_basic") & CSDBUS_SYM(message_unref, "sd_bus_message_unref")
        & CSDBUS_SYM(get_type, "sd_bus_message_get_type") & CSDBUS_SYM(get_member, "sd_bus_message_get_member")
        & CSDBUS_SYM(get_interface, "sd_bus_message_get_interface") & CSDBUS_SYM(get_path, "sd_bus_message_get_path")
        & CSDBUS_SYM(get_sender, "sd_bus_message_get_sender") & CSDBUS_SYM(peek_type, "sd_bus_message_peek_type")
        & CSDBUS_SYM(read_basic, "sd_bus_message_read_basic") & CSDBUS_SYM(enter_container, "sd_bus_message_enter_container")
        & CSDBUS_SYM(exit_container, "sd_bus_message_exit_container") & CSDBUS_SYM(skip, "sd_bus_message_skip");
}
#undef CSDBUS_SYM

/// The sd-bus table, or NULL when libsystemd (or one of its bus calls) is missing.
static inline const csdbus_api_t *csdbus(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, csdbus_load_once);
    return csdbus_api_storage()->ok ? csdbus_api_storage() : NULL;
}

#ifndef CSDBUS_H
#define CSDBUS_H
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>

// sd-bus, for the mpris, focus and geoclue adapters: libsystemd is loaded on the first bus call
// (dlopen), so the cost stays with `watch`/`run` of an adapter on the bus. Only the
// non-variadic message API: Swift cannot call C variadic functions. (The agent's own use of
// libsystemd, sd_notify and the machine id, is CSystemd's, in IngestCore.)
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

/// The one table of `csdbus`, defined in csdbus.c: a `static` inside this header would give
/// every object file its own, never-filled copy (release builds split a module into several).
extern csdbus_api_t csdbus_api_table;
static inline csdbus_api_t *csdbus_api_storage(void) { return &csdbus_api_table; }


/// The sd-bus table, or NULL when libsystemd (or one of its bus calls) is missing.
const csdbus_api_t *csdbus(void);

#endif

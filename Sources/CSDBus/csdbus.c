#include "csdbus.h"

csdbus_api_t csdbus_api_table;

/// Looks `name` up in `handle` into the table's `field`; 1 when it was found. An int, so that `&`
/// looks every symbol up (`&&` would stop at the first one missing).
#define CSDBUS_SYM(handle, field, name) (int)((*(void **)&csdbus_api_table.field = dlsym(handle, name)) != NULL)

static void csdbus_load_once(void) {
    void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    int ok = CSDBUS_SYM(h, open_user, "sd_bus_open_user") & CSDBUS_SYM(h, open_system, "sd_bus_open_system")
        & CSDBUS_SYM(h, flush_close_unref, "sd_bus_flush_close_unref")
        & CSDBUS_SYM(h, get_fd, "sd_bus_get_fd") & CSDBUS_SYM(h, get_events, "sd_bus_get_events")
        & CSDBUS_SYM(h, process, "sd_bus_process") & CSDBUS_SYM(h, add_match, "sd_bus_add_match")
        & CSDBUS_SYM(h, call, "sd_bus_call")
        & CSDBUS_SYM(h, error_free, "sd_bus_error_free") & CSDBUS_SYM(h, new_method_call, "sd_bus_message_new_method_call")
        & CSDBUS_SYM(h, append_basic, "sd_bus_message_append_basic")
        & CSDBUS_SYM(h, open_container, "sd_bus_message_open_container") & CSDBUS_SYM(h, close_container, "sd_bus_message_close_container")
        & CSDBUS_SYM(h, send, "sd_bus_send") & CSDBUS_SYM(h, get_reply_cookie, "sd_bus_message_get_reply_cookie")
        & CSDBUS_SYM(h, get_error, "sd_bus_message_get_error") & CSDBUS_SYM(h, message_unref, "sd_bus_message_unref")
        & CSDBUS_SYM(h, get_type, "sd_bus_message_get_type") & CSDBUS_SYM(h, get_member, "sd_bus_message_get_member")
        & CSDBUS_SYM(h, get_interface, "sd_bus_message_get_interface") & CSDBUS_SYM(h, get_path, "sd_bus_message_get_path")
        & CSDBUS_SYM(h, get_sender, "sd_bus_message_get_sender") & CSDBUS_SYM(h, peek_type, "sd_bus_message_peek_type")
        & CSDBUS_SYM(h, read_basic, "sd_bus_message_read_basic") & CSDBUS_SYM(h, enter_container, "sd_bus_message_enter_container")
        & CSDBUS_SYM(h, exit_container, "sd_bus_message_exit_container") & CSDBUS_SYM(h, skip, "sd_bus_message_skip");
    if (!ok) return;
    csdbus_api_table.ok = 1;
}

#undef CSDBUS_SYM

const csdbus_api_t *csdbus(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, csdbus_load_once);
    return csdbus_api_table.ok ? &csdbus_api_table : NULL;
}

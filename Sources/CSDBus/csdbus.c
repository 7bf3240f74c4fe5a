#include "csdbus.h"

csdbus_api_t csdbus_api_table;
#define CSDBUS_SYM(field, name) (*(void **)(&a->field) = dlsym(h, name), a->field != NULL)
static void csdbus_load_once(void) {
    csdbus_api_t *a = csdbus_api_storage();
    void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    a->ok = CSDBUS_SYM(open_user, "sd_bus_open_user") & CSDBUS_SYM(open_system, "sd_bus_open_system") & CSDBUS_SYM(flush_close_unref, "sd_bus_flush_close_unref")
        & CSDBUS_SYM(get_fd, "sd_bus_get_fd") & CSDBUS_SYM(get_events, "sd_bus_get_events")
        & CSDBUS_SYM(process, "sd_bus_process") & CSDBUS_SYM(add_match, "sd_bus_add_match")
        & CSDBUS_SYM(call, "sd_bus_call")
        & CSDBUS_SYM(error_free, "sd_bus_error_free") & CSDBUS_SYM(new_method_call, "sd_bus_message_new_method_call")
        & CSDBUS_SYM(append_basic, "sd_bus_message_append_basic")
        & CSDBUS_SYM(open_container, "sd_bus_message_open_container") & CSDBUS_SYM(close_container, "sd_bus_message_close_container")
        & CSDBUS_SYM(send, "sd_bus_send") & CSDBUS_SYM(get_reply_cookie, "sd_bus_message_get_reply_cookie")
        & CSDBUS_SYM(get_error, "sd_bus_message_get_error") & CSDBUS_SYM(message_unref, "sd_bus_message_unref")
        & CSDBUS_SYM(get_type, "sd_bus_message_get_type") & CSDBUS_SYM(get_member, "sd_bus_message_get_member")
        & CSDBUS_SYM(get_interface, "sd_bus_message_get_interface") & CSDBUS_SYM(get_path, "sd_bus_message_get_path")
        & CSDBUS_SYM(get_sender, "sd_bus_message_get_sender") & CSDBUS_SYM(peek_type, "sd_bus_message_peek_type")
        & CSDBUS_SYM(read_basic, "sd_bus_message_read_basic") & CSDBUS_SYM(enter_container, "sd_bus_message_enter_container")
        & CSDBUS_SYM(exit_container, "sd_bus_message_exit_container") & CSDBUS_SYM(skip, "sd_bus_message_skip");
}

#undef CSDBUS_SYM
const csdbus_api_t *csdbus(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, csdbus_load_once);
    return csdbus_api_storage()->ok ? csdbus_api_storage() : NULL;
}

#include "csystemd.h"

csystemd_api_t csystemd_api_table;

/// Looks `name` up in `handle` into the table's `field`; 1 when it was found. An int, so that `&`
/// looks every symbol up (`&&` would stop at the first one missing).
#define CSYSTEMD_SYM(handle, field, name) (int)((*(void **)&csystemd_api_table.field = dlsym(handle, name)) != NULL)

static void csystemd_load_once(void) {
    void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    int ok = CSYSTEMD_SYM(h, app_specific, "sd_id128_get_machine_app_specific") & CSYSTEMD_SYM(h, notify, "sd_notify")
        & CSYSTEMD_SYM(h, watchdog_enabled, "sd_watchdog_enabled");
    if (!ok) return;
    csystemd_api_table.ok = 1;
}

#undef CSYSTEMD_SYM

int csystemd_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, csystemd_load_once);
    return csystemd_api_table.ok;
}

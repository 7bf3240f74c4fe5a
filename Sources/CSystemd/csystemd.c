#include "csystemd.h"

csystemd_api_t csystemd_api_table;
static void csystemd_load_once(void) {
    csystemd_api_t *a = csystemd_api_storage();
    void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    a->app_specific = (int (*)(sd_id128_t, sd_id128_t *))dlsym(h, "sd_id128_get_machine_app_specific");
    a->notify = (int (*)(int, const char *))dlsym(h, "sd_notify");
    a->watchdog_enabled = (int (*)(int, uint64_t *))dlsym(h, "sd_watchdog_enabled");
    a->ok = a->app_specific && a->notify && a->watchdog_enabled;
}

int csystemd_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, csystemd_load_once);
    return csystemd_api_storage()->ok;
}

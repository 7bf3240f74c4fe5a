#include "cgps.h"
#include <errno.h>

cgps_api_t cgps_api_table;
static void cgps_load_once(void) {
    cgps_api_t *a = cgps_api_storage();
    void *h = dlopen("libgps.so.28", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libgps.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    a->open = (int (*)(const char *, const char *, struct gps_data_t *))dlsym(h, "gps_open");
    a->close = (int (*)(struct gps_data_t *))dlsym(h, "gps_close");
    a->read = (int (*)(struct gps_data_t *, char *, int))dlsym(h, "gps_read");
    a->waiting = (bool (*)(const struct gps_data_t *, int))dlsym(h, "gps_waiting");
    a->stream = (int (*)(struct gps_data_t *, unsigned int, void *))dlsym(h, "gps_stream");
    a->errstr = (const char *(*)(const int))dlsym(h, "gps_errstr");
    a->ok = a->open && a->close && a->read && a->waiting && a->stream && a->errstr;
}

int cgps_available(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cgps_load_once);
    return cgps_api_storage()->ok;
}

enum { CGPS_NOT_INSTALLED = -1000, CGPS_WATCH_FAILED = -1001 };

int cgps_open_watch(struct gps_data_t *g, const char *host, const char *port) {
    if (!cgps_available()) return CGPS_NOT_INSTALLED;
    memset(g, 0, sizeof *g);
    errno = 0;
    if (cgps_api_table.open(host, port, g) != 0) {
        // gps_open returns -1 and leaves netlib's own code (NL_NOHOST, NL_NOCONNECT, ...) in errno.
        return errno < 0 ? errno : NL_NOCONNECT;
    }
    if (cgps_api_table.stream(g, WATCH_ENABLE | WATCH_JSON, NULL) < 0) { cgps_api_table.close(g); return CGPS_WATCH_FAILED; }
    return 0;
}

const char *cgps_errstr(int rc) {
    switch (rc) {
    case CGPS_NOT_INSTALLED: return "libgps.so.28 is not installed";
    case CGPS_WATCH_FAILED: return "gpsd did not take the WATCH command";
    default: return cgps_api_table.errstr(rc);
    }
}

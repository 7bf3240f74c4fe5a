#include "cgps.h"
#include <errno.h>

cgps_api_t cgps_api_table;

/// Looks `name` up in `handle` into the table's `field`; 1 when it was found. An int, so that `&`
/// looks every symbol up (`&&` would stop at the first one missing).
#define CGPS_SYM(handle, field, name) (int)((*(void **)&cgps_api_table.field = dlsym(handle, name)) != NULL)

static void cgps_load_once(void) {
    void *h = dlopen("libgps.so.28", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libgps.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    int ok = CGPS_SYM(h, open, "gps_open") & CGPS_SYM(h, close, "gps_close") & CGPS_SYM(h, read, "gps_read")
        & CGPS_SYM(h, waiting, "gps_waiting") & CGPS_SYM(h, stream, "gps_stream") & CGPS_SYM(h, errstr, "gps_errstr");
    if (!ok) return;
    cgps_api_table.ok = 1;
}

#undef CGPS_SYM

int cgps_available(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cgps_load_once);
    return cgps_api_table.ok;
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

#ifndef CGPS_H
#define CGPS_H
#include <gps.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// libgps is loaded on first use (dlopen), like libcurl: only the gpsd adapter needs it, and a
// machine without gpsd need not have it installed. Swift sees a flat report, never gps_data_t
// (a large struct of unions whose layout is libgps's business).

typedef struct {
    int ok;
    int (*open)(const char *, const char *, struct gps_data_t *);
    int (*close)(struct gps_data_t *);
    int (*read)(struct gps_data_t *, char *, int);
    bool (*waiting)(const struct gps_data_t *, int);
    int (*stream)(struct gps_data_t *, unsigned int, void *);
    const char *(*errstr)(const int);
} cgps_api_t;

/// The one table of `cgps`, defined in cgps.c: a `static` inside this header would give
/// every object file its own, never-filled copy (release builds split a module into several).
extern cgps_api_t cgps_api_table;
static inline cgps_api_t *cgps_api_storage(void) { return &cgps_api_table; }


/// 1 when libgps could be loaded.
int cgps_available(void);

/// What one read brought, flattened. Unknown numbers are NaN.
typedef struct {
    int has_fix;            // this read was a TPV with mode >= 2
    int mode;
    double time;            // seconds since the epoch, 0 when unknown
    double latitude, longitude, altitude;
    double eph, epx, epy;   // metres
    double speed;           // metres per second
    int has_version;        // this read was a VERSION report
    int proto_major, proto_minor;
    int has_error;          // this read was an ERROR report
} cgps_report_t;

/// A zeroed gps_data_t on the heap, or NULL.
static inline struct gps_data_t *cgps_new(void) { return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t)); }
static inline void cgps_free(struct gps_data_t *g) { free(g); }

/// gps_open + WATCH_ENABLE|WATCH_JSON; 0 or an error code for cgps_errstr.
int cgps_open_watch(struct gps_data_t *g, const char *host, const char *port);
/// What an error code of cgps_open_watch means.
const char *cgps_errstr(int rc);
static inline void cgps_close(struct gps_data_t *g) { if (cgps_available()) cgps_api_storage()->close(g); }
static inline int cgps_fd(const struct gps_data_t *g) { return (int)g->gps_fd; }
static inline int cgps_waiting(const struct gps_data_t *g, int timeout_us) { return cgps_api_storage()->waiting(g, timeout_us) ? 1 : 0; }

/// Reads one report; -1 when the connection failed.
static inline int cgps_read(struct gps_data_t *g, cgps_report_t *out) {
    memset(out, 0, sizeof *out);
    g->set = 0;   // so the mask below says what this read brought
    int rc = cgps_api_storage()->read(g, NULL, 0);
    if (rc < 0) return -1;
    out->mode = g->fix.mode;
    // A TPV claiming a fix counts even without a position: libgps leaves the missing latitude
    // or longitude NaN, and the adapter drops and counts it.
    out->has_fix = (g->set & (LATLON_SET | MODE_SET)) && g->fix.mode >= MODE_2D;
    out->time = (g->set & TIME_SET) ? (double)g->fix.time.tv_sec + (double)g->fix.time.tv_nsec / 1e9 : 0;
    out->latitude = g->fix.latitude;
    out->longitude = g->fix.longitude;
    out->altitude = (g->set & ALTITUDE_SET) ? g->fix.altMSL : NAN;
    out->eph = g->fix.eph;
    out->epx = g->fix.epx;
    out->epy = g->fix.epy;
    out->speed = (g->set & SPEED_SET) ? g->fix.speed : NAN;
    out->has_version = (g->set & VERSION_SET) ? 1 : 0;
    out->proto_major = g->version.proto_major;
    out->proto_minor = g->version.proto_minor;
    out->has_error = (g->set & ERROR_SET) ? 1 : 0;
    return rc;
}

#endif

#include "cpoppler.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>

// The few GLib, poppler-glib and cairo declarations used, by their stable C ABI, so that
// building needs no GLib include paths (SwiftPM C targets get no pkg-config flags).
typedef struct { uint32_t domain; int code; char *message; } GError;
typedef struct _GBytes GBytes;
typedef struct _GDateTime GDateTime;
typedef struct _PopplerPage PopplerPage;
typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;
typedef struct _GList { void *data; struct _GList *next, *prev; } GList;
typedef struct { double x1, y1, x2, y2; } PopplerRectangle;
typedef struct { PopplerRectangle area; int image_id; } PopplerImageMapping;
enum { CAIRO_STATUS_SUCCESS = 0, CAIRO_FORMAT_ARGB32 = 0, CAIRO_FORMAT_RGB24 = 1, CAIRO_FORMAT_A8 = 2, CAIRO_FORMAT_A1 = 3 };

typedef struct {
    int ok;
    GBytes *(*bytes_new)(const void *, size_t);
    void (*bytes_unref)(GBytes *);
    void (*error_free)(GError *);
    void (*object_unref)(void *);
    void (*g_free)(void *);
    void *(*document_new_from_bytes)(GBytes *, const char *, GError **);
    int (*document_n_pages)(void *);
    PopplerPage *(*document_page)(void *, int);
    GDateTime *(*document_creation_date_time)(void *);
    char *(*page_text)(PopplerPage *);
    void (*page_size)(PopplerPage *, double *, double *);
    void (*page_render)(PopplerPage *, cairo_t *);
    int64_t (*date_time_to_unix)(GDateTime *);
    int64_t (*date_time_utc_offset)(GDateTime *);
    void (*date_time_unref)(GDateTime *);
    cairo_surface_t *(*image_surface_create)(int, int, int);
    unsigned char *(*image_surface_data)(cairo_surface_t *);
    int (*image_surface_stride)(cairo_surface_t *);
    int (*surface_status)(cairo_surface_t *);
    void (*surface_flush)(cairo_surface_t *);
    void (*surface_destroy)(cairo_surface_t *);
    cairo_t *(*create)(cairo_surface_t *);
    void (*destroy)(cairo_t *);
    void (*scale)(cairo_t *, double, double);
    void (*translate)(cairo_t *, double, double);
    void (*save)(cairo_t *);
    void (*restore)(cairo_t *);
    void (*set_source_rgb)(cairo_t *, double, double, double);
    void (*paint)(cairo_t *);
    GList *(*page_image_mapping)(PopplerPage *);
    void (*free_image_mapping)(GList *);
    cairo_surface_t *(*page_image)(PopplerPage *, int);
    int (*image_surface_width)(cairo_surface_t *);
    int (*image_surface_height)(cairo_surface_t *);
    int (*image_surface_format)(cairo_surface_t *);
} cpoppler_api_t;

static cpoppler_api_t api;

/// Looks `name` up in `handle` into the table's `field`; 1 when it was found. An int, so that `&`
/// looks every symbol up (`&&` would stop at the first one missing).
#define CPOPPLER_SYM(handle, field, name) (int)((*(void **)&api.field = dlsym(handle, name)) != NULL)

static void cpoppler_load_once(void) {
    void *h = dlopen("libpoppler-glib.so.8", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    int ok = CPOPPLER_SYM(h, bytes_new, "g_bytes_new") & CPOPPLER_SYM(h, bytes_unref, "g_bytes_unref") & CPOPPLER_SYM(h, error_free, "g_error_free")
        & CPOPPLER_SYM(h, object_unref, "g_object_unref") & CPOPPLER_SYM(h, g_free, "g_free")
        & CPOPPLER_SYM(h, document_new_from_bytes, "poppler_document_new_from_bytes")
        & CPOPPLER_SYM(h, document_n_pages, "poppler_document_get_n_pages") & CPOPPLER_SYM(h, document_page, "poppler_document_get_page")
        & CPOPPLER_SYM(h, document_creation_date_time, "poppler_document_get_creation_date_time")
        & CPOPPLER_SYM(h, page_text, "poppler_page_get_text") & CPOPPLER_SYM(h, page_size, "poppler_page_get_size")
        & CPOPPLER_SYM(h, page_render, "poppler_page_render") & CPOPPLER_SYM(h, date_time_to_unix, "g_date_time_to_unix")
        & CPOPPLER_SYM(h, date_time_utc_offset, "g_date_time_get_utc_offset") & CPOPPLER_SYM(h, date_time_unref, "g_date_time_unref")
        & CPOPPLER_SYM(h, image_surface_create, "cairo_image_surface_create") & CPOPPLER_SYM(h, image_surface_data, "cairo_image_surface_get_data")
        & CPOPPLER_SYM(h, image_surface_stride, "cairo_image_surface_get_stride") & CPOPPLER_SYM(h, surface_status, "cairo_surface_status")
        & CPOPPLER_SYM(h, surface_flush, "cairo_surface_flush") & CPOPPLER_SYM(h, surface_destroy, "cairo_surface_destroy")
        & CPOPPLER_SYM(h, create, "cairo_create") & CPOPPLER_SYM(h, destroy, "cairo_destroy") & CPOPPLER_SYM(h, scale, "cairo_scale")
        & CPOPPLER_SYM(h, translate, "cairo_translate") & CPOPPLER_SYM(h, save, "cairo_save") & CPOPPLER_SYM(h, restore, "cairo_restore")
        & CPOPPLER_SYM(h, set_source_rgb, "cairo_set_source_rgb") & CPOPPLER_SYM(h, paint, "cairo_paint")
        & CPOPPLER_SYM(h, page_image_mapping, "poppler_page_get_image_mapping") & CPOPPLER_SYM(h, free_image_mapping, "poppler_page_free_image_mapping")
        & CPOPPLER_SYM(h, page_image, "poppler_page_get_image") & CPOPPLER_SYM(h, image_surface_width, "cairo_image_surface_get_width")
        & CPOPPLER_SYM(h, image_surface_height, "cairo_image_surface_get_height") & CPOPPLER_SYM(h, image_surface_format, "cairo_image_surface_get_format");
    if (!ok) return;
    api.ok = 1;
}

#undef CPOPPLER_SYM

int cpoppler_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cpoppler_load_once);
    return api.ok;
}

cpoppler_document *cpoppler_open(const unsigned char *data, size_t size, char **error) {
    *error = NULL;
    if (!cpoppler_load()) return NULL;
    GBytes *bytes = api.bytes_new(data, size);
    GError *problem = NULL;
    void *doc = api.document_new_from_bytes(bytes, NULL, &problem);
    api.bytes_unref(bytes);          // the document holds its own reference
    if (problem) {
        if (problem->message) *error = strdup(problem->message);
        api.error_free(problem);
    }
    return (cpoppler_document *)doc;
}

void cpoppler_close(cpoppler_document *doc) { if (doc) api.object_unref(doc); }

int cpoppler_page_count(cpoppler_document *doc) { return api.document_n_pages(doc); }

char *cpoppler_page_text(cpoppler_document *doc, int index) {
    PopplerPage *page = api.document_page(doc, index);
    if (!page) return NULL;
    char *text = api.page_text(page);
    api.object_unref(page);
    if (!text) return NULL;
    char *copy = strdup(text);
    api.g_free(text);
    return copy;
}

int cpoppler_page_images(cpoppler_document *doc, int index, double *largest_share, int *largest_id, double *largest_area) {
    *largest_share = 0; *largest_id = -1; *largest_area = 0;
    PopplerPage *page = api.document_page(doc, index);
    if (!page) return 0;
    double w_pt = 0, h_pt = 0;
    api.page_size(page, &w_pt, &h_pt);
    // Listing the images runs the page's content without decoding any of them (poppler decodes
    // only the images a caller asks for).
    GList *mapping = api.page_image_mapping(page);
    int count = 0;
    for (GList *item = mapping; item; item = item->next, count++) {
        const PopplerImageMapping *image = item->data;
        double area = fabs(image->area.x2 - image->area.x1) * fabs(image->area.y2 - image->area.y1);
        double share = w_pt > 0 && h_pt > 0 ? area / (w_pt * h_pt) : 0;
        if (share > *largest_share) { *largest_share = share > 1 ? 1 : share; *largest_id = image->image_id; *largest_area = area; }
    }
    api.free_image_mapping(mapping);
    api.object_unref(page);
    return count;
}

// The luma of one pixel of a cairo image surface, composited on white paper.
static unsigned char surface_gray(const unsigned char *row, long x, int format) {
    switch (format) {
    case CAIRO_FORMAT_A8: return (unsigned char)(255 - row[x]);
    case CAIRO_FORMAT_A1: return ((((const uint32_t *)row)[x >> 5] >> (x & 31)) & 1) ? 0 : 255;
    default: {
        uint32_t p = ((const uint32_t *)row)[x];      // 0xAARRGGBB in native order, premultiplied
        unsigned luma = (((p >> 16) & 0xFF) * 77 + ((p >> 8) & 0xFF) * 150 + (p & 0xFF) * 29) >> 8;
        unsigned alpha = format == CAIRO_FORMAT_ARGB32 ? p >> 24 : 255;
        unsigned gray = luma + (255 - alpha);
        return (unsigned char)(gray > 255 ? 255 : gray);
    }
    }
}

unsigned char *cpoppler_page_image_gray(cpoppler_document *doc, int index, int image_id, long max_pixels, int *width, int *height) {
    PopplerPage *page = api.document_page(doc, index);
    if (!page) return NULL;
    cairo_surface_t *surface = api.page_image(page, image_id);
    api.object_unref(page);
    if (!surface) return NULL;
    unsigned char *gray = NULL;
    long w = api.image_surface_width(surface), h = api.image_surface_height(surface);
    int format = api.image_surface_format(surface);
    if (api.surface_status(surface) == CAIRO_STATUS_SUCCESS && w > 0 && h > 0 && w * h <= max_pixels
        && format >= CAIRO_FORMAT_ARGB32 && format <= CAIRO_FORMAT_A1 && (gray = malloc((size_t)(w * h)))) {
        api.surface_flush(surface);
        const unsigned char *data = api.image_surface_data(surface);
        int stride = api.image_surface_stride(surface);
        for (long y = 0; y < h; y++)
            for (long x = 0; x < w; x++) gray[y * w + x] = surface_gray(data + y * stride, x, format);
        *width = (int)w; *height = (int)h;
    }
    api.surface_destroy(surface);
    return gray;
}

// A band of the page is rendered at a time, into a surface of at most this many bytes: a full
// A4 page at 300 dpi would take a 35 MB colour surface beside its 8.7 MB of grey, per core.
enum { BAND_BYTES = 4 << 20 };

// Renders rows [y0, y0 + rows) of `page` into `surface` (`w` wide, at least `rows` high) and
// writes them to `gray` as 8-bit luma.
static void render_band(PopplerPage *page, cairo_t *cr, cairo_surface_t *surface, double scale,
                        long y0, long rows, long w, unsigned char *gray) {
    api.save(cr);
    api.set_source_rgb(cr, 1, 1, 1);    // a scan's paper, not cairo's transparent black
    api.paint(cr);
    api.translate(cr, 0, (double)-y0);
    api.scale(cr, scale, scale);
    api.page_render(page, cr);
    api.restore(cr);
    api.surface_flush(surface);
    const unsigned char *rgb = api.image_surface_data(surface);
    int stride = api.image_surface_stride(surface);
    for (long y = 0; y < rows; y++) {
        const uint32_t *row = (const uint32_t *)(rgb + y * stride);
        unsigned char *out = gray + (y0 + y) * w;
        for (long x = 0; x < w; x++) {
            uint32_t p = row[x];      // 0x00RRGGBB in native order
            out[x] = (unsigned char)((((p >> 16) & 0xFF) * 77 + ((p >> 8) & 0xFF) * 150 + (p & 0xFF) * 29) >> 8);
        }
    }
}

unsigned char *cpoppler_page_render_gray(cpoppler_document *doc, int index, double dpi, long max_pixels, int *width, int *height) {
    PopplerPage *page = api.document_page(doc, index);
    if (!page) return NULL;
    double w_pt = 0, h_pt = 0;
    api.page_size(page, &w_pt, &h_pt);
    double scale = dpi / 72.0;
    long w = (long)(w_pt * scale + 0.5), h = (long)(h_pt * scale + 0.5);
    unsigned char *gray = NULL;
    if (w > 0 && h > 0 && w <= 30000 && h <= 30000 && w * h <= max_pixels) {
        long band = BAND_BYTES / (4 * w);
        if (band < 16) band = 16;
        if (band > h) band = h;
        cairo_surface_t *surface = api.image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)band);
        if (api.surface_status(surface) == CAIRO_STATUS_SUCCESS && (gray = malloc((size_t)(w * h)))) {
            cairo_t *cr = api.create(surface);
            for (long y0 = 0; y0 < h; y0 += band) render_band(page, cr, surface, scale, y0, h - y0 < band ? h - y0 : band, w, gray);
            api.destroy(cr);
        }
        api.surface_destroy(surface);
    }
    api.object_unref(page);
    if (gray) { *width = (int)w; *height = (int)h; }
    return gray;
}

int cpoppler_creation_date(cpoppler_document *doc, int64_t *unix_seconds, int *offset_seconds) {
    GDateTime *date = api.document_creation_date_time(doc);
    if (!date) return 0;
    *unix_seconds = api.date_time_to_unix(date);
    *offset_seconds = (int)(api.date_time_utc_offset(date) / 1000000);
    api.date_time_unref(date);
    return 1;
}

#ifndef CPOPPLER_H
#define CPOPPLER_H
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

// poppler-glib is loaded on first use (dlopen), not at process start: it brings libpoppler,
// cairo, GLib, NSS, lcms and libstdc++, and only a scans run that meets a PDF needs it. GLib's
// and cairo's few functions are found through poppler-glib's handle, which loaded them.
//
// Swift sees only the calls below, over an opaque document: GLib's types (GBytes, GError,
// GDateTime) and cairo's surfaces stay inside cpoppler.c. A document is not thread-safe: one
// call at a time per document.

typedef struct cpoppler_document cpoppler_document;

/// Loads poppler-glib once per process; 0 when it (or a function) is missing.
int cpoppler_load(void);

/// Opens a PDF from memory (the bytes are copied). NULL on failure, with `*error` set to a
/// message to free with `free()` (or NULL when poppler gave none).
cpoppler_document *cpoppler_open(const unsigned char *data, size_t size, char **error);
void cpoppler_close(cpoppler_document *doc);
int cpoppler_page_count(cpoppler_document *doc);

/// The text layer of page `index` as UTF-8, to free with `free()`; NULL when the page has none.
char *cpoppler_page_text(cpoppler_document *doc, int index);

/// Page `index` rendered at `dpi` on white, as 8-bit grey rows of `*width` bytes, to free with
/// `free()`; NULL when the page cannot be rendered (or would exceed `max_pixels`).
unsigned char *cpoppler_page_render_gray(cpoppler_document *doc, int index, double dpi, long max_pixels, int *width, int *height);

/// How many images page `index` draws, and of the largest: the share of the page it covers
/// (0–1), its id for `cpoppler_page_image_gray` and its area in square points. Decodes none.
int cpoppler_page_images(cpoppler_document *doc, int index, double *largest_share, int *largest_id, double *largest_area);

/// Image `image_id` of page `index`, decoded once at its own resolution, as 8-bit grey rows of
/// `*width` bytes on white, to free with `free()`; NULL when it cannot be (or is over `max_pixels`).
unsigned char *cpoppler_page_image_gray(cpoppler_document *doc, int index, int image_id, long max_pixels, int *width, int *height);

/// The Info dictionary's CreationDate: 1 with seconds since the epoch and the date's own UTC
/// offset in seconds (poppler reads a date without one as UTC), 0 when there is none.
int cpoppler_creation_date(cpoppler_document *doc, int64_t *unix_seconds, int *offset_seconds);

#endif

#ifndef CTESSERACT_H
#define CTESSERACT_H
#include <tesseract/capi.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

// libtesseract and leptonica are loaded on first use (dlopen), not at process start: together
// they pull in libarchive, libcurl, libgomp, libpng, libjpeg, libtiff, libwebp, libopenjp2 and
// libstdc++, and only a scans run needs them. Leptonica is loaded by its own name, not found
// through Tesseract, because the pages are decoded with it before any engine exists.
// Leptonica's `PIX` is used only as the opaque `struct Pix` Tesseract's C API already declares.

typedef struct {
    int ok;
    TessBaseAPI *(*create)(void);
    void (*destroy)(TessBaseAPI *);
    int (*init)(TessBaseAPI *, const char *, const char *, TessOcrEngineMode);
    BOOL (*set_variable)(TessBaseAPI *, const char *, const char *);
    void (*set_image_pix)(TessBaseAPI *, struct Pix *);
    void (*set_resolution)(TessBaseAPI *, int);
    int (*recognize)(TessBaseAPI *, ETEXT_DESC *);
    char *(*utf8_text)(TessBaseAPI *);
    int *(*word_confidences)(TessBaseAPI *);
    void (*clear)(TessBaseAPI *);
    void (*delete_text)(const char *);
    void (*delete_ints)(const int *);
    const char *(*version)(void);
    void (*set_page_seg_mode)(TessBaseAPI *, TessPageSegMode);
    BOOL (*detect_orientation)(TessBaseAPI *, int *, float *, const char **, float *);
    // leptonica
    struct Pix *(*pix_read_mem)(const unsigned char *, size_t);
    struct Pix *(*pix_read_mem_tiff)(const unsigned char *, size_t, int);
    int (*read_header_mem_tiff)(const unsigned char *, size_t, int, int *, int *, int *, int *, int *, int *, int *);
    void (*pix_destroy)(struct Pix **);
    struct Pix *(*pix_rotate_orth)(struct Pix *, int);
    struct Pix *(*pix_flip_lr)(struct Pix *, struct Pix *);
    struct Pix *(*pix_flip_tb)(struct Pix *, struct Pix *);
    void (*set_stderr_handler)(void (*)(const char *));
    struct Pix *(*pix_deskew)(struct Pix *, int, float, float, int, int, float *, float *);
    struct Pix *(*pix_create)(int, int, int);
    uint32_t *(*pix_data)(struct Pix *);
    int (*pix_wpl)(struct Pix *);
    int (*pix_endian_byte_swap)(struct Pix *);
    int (*pix_set_resolution)(struct Pix *, int, int);
    struct Pix *(*pix_read_mem_jpeg)(const unsigned char *, size_t, int, int, int *, int);
    int (*read_header_mem_jpeg)(const unsigned char *, size_t, int *, int *, int *, int *, int *);
} ctess_api_t;

/// The one table of `ctess`, defined in ctesseract.c: a `static` inside this header would give
/// every object file its own, never-filled copy (release builds split a module into several).
extern ctess_api_t ctess_api_table;
static inline ctess_api_t *ctess_api_storage(void) { return &ctess_api_table; }

/// Loads libtesseract and leptonica once per process; 0 when either (or a function) is missing.
int ctess_load(void);

/// Hands the free memory a page's recognition left in malloc's heaps back to the system, and
/// from the first call on lets every block of 1 MiB or more be its own mapping (returned when
/// freed): a page's images are a few MB each, and glibc would otherwise keep them in its heaps.
void ctess_release_page_memory(void);

static inline TessBaseAPI *ctess_create(void) { return ctess_api_storage()->create(); }
static inline void ctess_delete(TessBaseAPI *h) { ctess_api_storage()->destroy(h); }
/// 0 on success; `datapath` NULL means the library's own tessdata folder.
static inline int ctess_init(TessBaseAPI *h, const char *datapath, const char *languages) {
    return ctess_api_storage()->init(h, datapath, languages, OEM_DEFAULT);
}
/// 0 on success: an engine for orientation detection only (`osd.traineddata`, a legacy model).
static inline int ctess_init_osd(TessBaseAPI *h) {
    int rc = ctess_api_storage()->init(h, NULL, "osd", OEM_TESSERACT_ONLY);
    if (rc == 0) ctess_api_storage()->set_page_seg_mode(h, PSM_OSD_ONLY);
    return rc;
}
/// 1 with the page's orientation (0, 90, 180, 270: how far it is turned clockwise) and its
/// confidence, for the image set last; 0 when too little text shows it.
static inline int ctess_detect_orientation(TessBaseAPI *h, int *degrees, float *confidence) {
    const char *script = NULL;
    float script_confidence = 0;
    return ctess_api_storage()->detect_orientation(h, degrees, confidence, &script, &script_confidence);
}
static inline int ctess_set_variable(TessBaseAPI *h, const char *name, const char *value) { return ctess_api_storage()->set_variable(h, name, value); }
static inline void ctess_set_image_pix(TessBaseAPI *h, struct Pix *pix) { ctess_api_storage()->set_image_pix(h, pix); }
static inline void ctess_set_resolution(TessBaseAPI *h, int ppi) { ctess_api_storage()->set_resolution(h, ppi); }
static inline int ctess_recognize(TessBaseAPI *h) { return ctess_api_storage()->recognize(h, NULL); }
static inline char *ctess_utf8_text(TessBaseAPI *h) { return ctess_api_storage()->utf8_text(h); }
/// One confidence (0–100) per word, ended by -1; free with `ctess_delete_ints`.
static inline int *ctess_word_confidences(TessBaseAPI *h) { return ctess_api_storage()->word_confidences(h); }
static inline void ctess_clear(TessBaseAPI *h) { ctess_api_storage()->clear(h); }
static inline void ctess_delete_text(const char *text) { ctess_api_storage()->delete_text(text); }
static inline void ctess_delete_ints(const int *ints) { ctess_api_storage()->delete_ints(ints); }
static inline const char *ctess_version(void) { return ctess_load() ? ctess_api_storage()->version() : NULL; }

/// The image in `data` (PNG, JPEG, TIFF's first page, …), or NULL when leptonica cannot decode it.
static inline struct Pix *ctess_pix_read(const unsigned char *data, size_t size) { return ctess_api_storage()->pix_read_mem(data, size); }
/// Page `n` (from 0) of a TIFF, or NULL.
static inline struct Pix *ctess_pix_read_tiff_page(const unsigned char *data, size_t size, int n) {
    return ctess_api_storage()->pix_read_mem_tiff(data, size, n);
}
/// Whether a TIFF has a page `n` (from 0), reading only its directory.
static inline int ctess_tiff_has_page(const unsigned char *data, size_t size, int n) {
    int w, h, bps, spp, res, cmap, format;
    return ctess_api_storage()->read_header_mem_tiff(data, size, n, &w, &h, &bps, &spp, &res, &cmap, &format) == 0;
}
static inline void ctess_pix_destroy(struct Pix *pix) { ctess_api_storage()->pix_destroy(&pix); }
/// A new image: `pix` turned `quads` quarter turns clockwise (0–3); NULL on failure.
static inline struct Pix *ctess_pix_rotate_orth(struct Pix *pix, int quads) { return ctess_api_storage()->pix_rotate_orth(pix, quads); }
/// A new image: `pix` mirrored left to right; NULL on failure.
static inline struct Pix *ctess_pix_flip_lr(struct Pix *pix) { return ctess_api_storage()->pix_flip_lr(NULL, pix); }
/// A new image: `pix` mirrored top to bottom; NULL on failure.
static inline struct Pix *ctess_pix_flip_tb(struct Pix *pix) { return ctess_api_storage()->pix_flip_tb(NULL, pix); }
/// A new image: `pix` turned by its skew when leptonica finds one (within ±7°, with enough
/// confidence), else a clone; `*degrees` is the skew found. NULL on failure.
static inline struct Pix *ctess_pix_deskew(struct Pix *pix, float *degrees) {
    float confidence = 0;
    return ctess_api_storage()->pix_deskew(pix, 0, 0, 0, 0, 0, degrees, &confidence);
}
/// A PDF image's JPEG stream read as its 8-bit luminance alone, at `dpi`; NULL when it is not a
/// grey or RGB JPEG of `width` x `height` pixels, or is corrupt.
struct Pix *ctess_pix_read_jpeg_gray(const unsigned char *data, size_t size, int width, int height, int dpi);
/// A new 8-bit leptonica image holding `gray` (`width` bytes a row), at `dpi`; NULL on failure.
struct Pix *ctess_pix_from_gray(const unsigned char *gray, int width, int height, int dpi);
/// A new 8-bit leptonica image for the caller to write byte by byte: `*rows` is its first row,
/// `*stride` the bytes from one row to the next. NULL on failure.
struct Pix *ctess_pix_gray_rows(int width, int height, unsigned char **rows, size_t *stride);
/// Makes an image from `ctess_pix_gray_rows`, once written, one leptonica reads, at `dpi`.
void ctess_pix_gray_filled(struct Pix *pix, int width, int height, int dpi);

#endif

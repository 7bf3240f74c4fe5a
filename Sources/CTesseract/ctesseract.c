#include "ctesseract.h"
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

ctess_api_t ctess_api_table;

/// Looks `name` up in `handle` into the table's `field`; 1 when it was found. An int, so that `&`
/// looks every symbol up (`&&` would stop at the first one missing).
#define CTESS_SYM(handle, field, name) (int)((*(void **)&ctess_api_table.field = dlsym(handle, name)) != NULL)

static void *ctess_open(const char *const *names) {
    for (; *names; names++) {
        void *h = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (h) return h;
    }
    return NULL;
}

static void ctess_quiet(const char *message) { (void)message; }

static void ctess_load_once(void) {
    ctess_api_t *a = &ctess_api_table;
    // Tesseract's LSTM asks OpenMP for up to 10 threads per recognition, which libgomp then spins
    // on; the agent runs one engine per core instead, so each engine gets one thread (as ocrmypdf
    // does). libgomp reads the limit when it is loaded, which is now; a limit the user set stays.
    setenv("OMP_THREAD_LIMIT", "1", 0);
    static const char *const leptonica[] = {"liblept.so.5", "libleptonica.so.6", "libleptonica.so", NULL};
    static const char *const tesseract[] = {"libtesseract.so.5", "libtesseract.so", NULL};
    void *l = ctess_open(leptonica);
    void *t = l ? ctess_open(tesseract) : NULL;
    if (!t) return;
    int ok = CTESS_SYM(t, create, "TessBaseAPICreate") & CTESS_SYM(t, destroy, "TessBaseAPIDelete")
        & CTESS_SYM(t, init, "TessBaseAPIInit2") & CTESS_SYM(t, set_variable, "TessBaseAPISetVariable")
        & CTESS_SYM(t, set_image_pix, "TessBaseAPISetImage2") & CTESS_SYM(t, set_resolution, "TessBaseAPISetSourceResolution")
        & CTESS_SYM(t, recognize, "TessBaseAPIRecognize") & CTESS_SYM(t, utf8_text, "TessBaseAPIGetUTF8Text")
        & CTESS_SYM(t, word_confidences, "TessBaseAPIAllWordConfidences") & CTESS_SYM(t, clear, "TessBaseAPIClear")
        & CTESS_SYM(t, delete_text, "TessDeleteText") & CTESS_SYM(t, delete_ints, "TessDeleteIntArray")
        & CTESS_SYM(t, version, "TessVersion") & CTESS_SYM(t, set_page_seg_mode, "TessBaseAPISetPageSegMode")
        & CTESS_SYM(t, detect_orientation, "TessBaseAPIDetectOrientationScript")
        & CTESS_SYM(l, pix_read_mem, "pixReadMem") & CTESS_SYM(l, pix_read_mem_tiff, "pixReadMemTiff")
        & CTESS_SYM(l, read_header_mem_tiff, "readHeaderMemTiff") & CTESS_SYM(l, pix_destroy, "pixDestroy")
        & CTESS_SYM(l, pix_rotate_orth, "pixRotateOrth") & CTESS_SYM(l, pix_flip_lr, "pixFlipLR")
        & CTESS_SYM(l, pix_flip_tb, "pixFlipTB") & CTESS_SYM(l, set_stderr_handler, "leptSetStderrHandler")
        & CTESS_SYM(l, pix_deskew, "pixDeskewGeneral") & CTESS_SYM(l, pix_create, "pixCreateNoInit")
        & CTESS_SYM(l, pix_data, "pixGetData") & CTESS_SYM(l, pix_wpl, "pixGetWpl")
        & CTESS_SYM(l, pix_endian_byte_swap, "pixEndianByteSwap") & CTESS_SYM(l, pix_set_resolution, "pixSetResolution")
        & CTESS_SYM(l, pix_read_mem_jpeg, "pixReadMemJpeg") & CTESS_SYM(l, read_header_mem_jpeg, "readHeaderMemJpeg");
    if (!ok) return;
    // A corrupt file is reported once, by the adapter; leptonica's own lines would repeat it.
    a->set_stderr_handler(ctess_quiet);
    a->ok = 1;
}

#undef CTESS_SYM

int ctess_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ctess_load_once);
    return ctess_api_table.ok;
}

struct Pix *ctess_pix_gray_rows(int width, int height, unsigned char **rows, size_t *stride) {
    ctess_api_t *a = ctess_api_storage();
    struct Pix *pix = a->pix_create(width, height, 8);
    if (!pix) return NULL;
    *rows = (unsigned char *)a->pix_data(pix);
    *stride = (size_t)a->pix_wpl(pix) * 4;
    return pix;
}

void ctess_pix_gray_filled(struct Pix *pix, int width, int height, int dpi) {
    ctess_api_t *a = ctess_api_storage();
    // Leptonica keeps 8-bit pixels in 32-bit words, the first pixel in the word's high byte:
    // rows were written as bytes, so each word's bytes are swapped into that order (on little endian).
    unsigned char *rows = (unsigned char *)a->pix_data(pix);
    size_t stride = (size_t)a->pix_wpl(pix) * 4;
    for (int y = 0; y < height; y++) memset(rows + (size_t)y * stride + width, 255, stride - (size_t)width);
    a->pix_endian_byte_swap(pix);
    a->pix_set_resolution(pix, dpi, dpi);
}

struct Pix *ctess_pix_from_gray(const unsigned char *gray, int width, int height, int dpi) {
    unsigned char *rows;
    size_t stride;
    struct Pix *pix = ctess_pix_gray_rows(width, height, &rows, &stride);
    if (!pix) return NULL;
    for (int y = 0; y < height; y++) memcpy(rows + (size_t)y * stride, gray + (size_t)y * width, (size_t)width);
    ctess_pix_gray_filled(pix, width, height, dpi);
    return pix;
}

// leptonica's L_JPEG_READ_LUMINANCE: libjpeg decodes the Y channel only, straight to 8 bits.
enum { CTESS_JPEG_READ_LUMINANCE = 1 };

struct Pix *ctess_pix_read_jpeg_gray(const unsigned char *data, size_t size, int width, int height, int dpi) {
    ctess_api_t *a = ctess_api_storage();
    int w = 0, h = 0, spp = 0, ycck = 0, cmyk = 0, warnings = 0;
    // The header is read first, so that the pixels allocated are those the PDF said (and checked).
    if (a->read_header_mem_jpeg(data, size, &w, &h, &spp, &ycck, &cmyk) != 0 || w != width || h != height
        || ycck || cmyk || (spp != 1 && spp != 3))
        return NULL;
    struct Pix *pix = a->pix_read_mem_jpeg(data, size, 0, 1, &warnings, CTESS_JPEG_READ_LUMINANCE);
    if (pix) a->pix_set_resolution(pix, dpi, dpi);
    return pix;
}

static void ctess_cap_mmap_threshold(void) { mallopt(M_MMAP_THRESHOLD, 1 << 20); }

void ctess_release_page_memory(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ctess_cap_mmap_threshold);
    malloc_trim(0);
}

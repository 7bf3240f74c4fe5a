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
        & CTESS_SYM(l, pix_endian_byte_swap, "pixEndianByteSwap") & CTESS_SYM(l, pix_set_resolution, "pixSetResolution");
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

struct Pix *ctess_pix_from_gray(const unsigned char *gray, int width, int height, int dpi) {
    ctess_api_t *a = ctess_api_storage();
    struct Pix *pix = a->pix_create(width, height, 8);
    if (!pix) return NULL;
    // Leptonica keeps 8-bit pixels in 32-bit words, the first pixel in the word's high byte:
    // rows are copied as bytes, then each word's bytes swapped into that order (on little endian).
    unsigned char *rows = (unsigned char *)a->pix_data(pix);
    size_t stride = (size_t)a->pix_wpl(pix) * 4;
    for (int y = 0; y < height; y++) {
        memcpy(rows + (size_t)y * stride, gray + (size_t)y * width, (size_t)width);
        memset(rows + (size_t)y * stride + width, 255, stride - (size_t)width);
    }
    a->pix_endian_byte_swap(pix);
    a->pix_set_resolution(pix, dpi, dpi);
    return pix;
}

static void ctess_cap_mmap_threshold(void) { mallopt(M_MMAP_THRESHOLD, 1 << 20); }

void ctess_release_page_memory(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ctess_cap_mmap_threshold);
    malloc_trim(0);
}

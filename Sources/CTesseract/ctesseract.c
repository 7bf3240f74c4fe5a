#include "ctesseract.h"
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

ctess_api_t ctess_api_table;

static void *ctess_open(const char *const *names) {
    for (; *names; names++) {
        void *h = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (h) return h;
    }
    return NULL;
}

static void ctess_quiet(const char *message) { (void)message; }

static void ctess_load_once(void) {
    ctess_api_t *a = ctess_api_storage();
    // Tesseract's LSTM asks OpenMP for up to 10 threads per recognition, which libgomp then spins
    // on; the agent runs one engine per core instead, so each engine gets one thread (as ocrmypdf
    // does). libgomp reads the limit when it is loaded, which is now; a limit the user set stays.
    setenv("OMP_THREAD_LIMIT", "1", 0);
    static const char *const leptonica[] = {"liblept.so.5", "libleptonica.so.6", "libleptonica.so", NULL};
    static const char *const tesseract[] = {"libtesseract.so.5", "libtesseract.so", NULL};
    void *l = ctess_open(leptonica);
    void *t = l ? ctess_open(tesseract) : NULL;
    if (!t) return;
    a->create = (TessBaseAPI *(*)(void))dlsym(t, "TessBaseAPICreate");
    a->destroy = (void (*)(TessBaseAPI *))dlsym(t, "TessBaseAPIDelete");
    a->init = (int (*)(TessBaseAPI *, const char *, const char *, TessOcrEngineMode))dlsym(t, "TessBaseAPIInit2");
    a->set_variable = (BOOL (*)(TessBaseAPI *, const char *, const char *))dlsym(t, "TessBaseAPISetVariable");
    a->set_image_pix = (void (*)(TessBaseAPI *, struct Pix *))dlsym(t, "TessBaseAPISetImage2");
    a->set_resolution = (void (*)(TessBaseAPI *, int))dlsym(t, "TessBaseAPISetSourceResolution");
    a->recognize = (int (*)(TessBaseAPI *, ETEXT_DESC *))dlsym(t, "TessBaseAPIRecognize");
    a->utf8_text = (char *(*)(TessBaseAPI *))dlsym(t, "TessBaseAPIGetUTF8Text");
    a->word_confidences = (int *(*)(TessBaseAPI *))dlsym(t, "TessBaseAPIAllWordConfidences");
    a->clear = (void (*)(TessBaseAPI *))dlsym(t, "TessBaseAPIClear");
    a->delete_text = (void (*)(const char *))dlsym(t, "TessDeleteText");
    a->delete_ints = (void (*)(const int *))dlsym(t, "TessDeleteIntArray");
    a->version = (const char *(*)(void))dlsym(t, "TessVersion");
    a->set_page_seg_mode = (void (*)(TessBaseAPI *, TessPageSegMode))dlsym(t, "TessBaseAPISetPageSegMode");
    a->detect_orientation = (BOOL (*)(TessBaseAPI *, int *, float *, const char **, float *))dlsym(t, "TessBaseAPIDetectOrientationScript");
    a->pix_read_mem = (struct Pix *(*)(const unsigned char *, size_t))dlsym(l, "pixReadMem");
    a->pix_read_mem_tiff = (struct Pix *(*)(const unsigned char *, size_t, int))dlsym(l, "pixReadMemTiff");
    a->read_header_mem_tiff = (int (*)(const unsigned char *, size_t, int, int *, int *, int *, int *, int *, int *, int *))
        dlsym(l, "readHeaderMemTiff");
    a->pix_destroy = (void (*)(struct Pix **))dlsym(l, "pixDestroy");
    a->pix_rotate_orth = (struct Pix *(*)(struct Pix *, int))dlsym(l, "pixRotateOrth");
    a->pix_flip_lr = (struct Pix *(*)(struct Pix *, struct Pix *))dlsym(l, "pixFlipLR");
    a->pix_flip_tb = (struct Pix *(*)(struct Pix *, struct Pix *))dlsym(l, "pixFlipTB");
    a->set_stderr_handler = (void (*)(void (*)(const char *)))dlsym(l, "leptSetStderrHandler");
    a->pix_deskew = (struct Pix *(*)(struct Pix *, int, float, float, int, int, float *, float *))dlsym(l, "pixDeskewGeneral");
    a->pix_create = (struct Pix *(*)(int, int, int))dlsym(l, "pixCreateNoInit");
    a->pix_data = (uint32_t *(*)(struct Pix *))dlsym(l, "pixGetData");
    a->pix_wpl = (int (*)(struct Pix *))dlsym(l, "pixGetWpl");
    a->pix_endian_byte_swap = (int (*)(struct Pix *))dlsym(l, "pixEndianByteSwap");
    a->pix_set_resolution = (int (*)(struct Pix *, int, int))dlsym(l, "pixSetResolution");
    a->ok = a->create && a->destroy && a->init && a->set_variable && a->set_image_pix && a->set_resolution
        && a->recognize && a->utf8_text && a->word_confidences && a->clear && a->delete_text && a->delete_ints && a->version
        && a->set_page_seg_mode && a->detect_orientation && a->pix_read_mem && a->pix_read_mem_tiff && a->read_header_mem_tiff && a->pix_destroy
        && a->pix_rotate_orth && a->pix_flip_lr && a->pix_flip_tb && a->set_stderr_handler
        && a->pix_deskew && a->pix_create && a->pix_data && a->pix_wpl && a->pix_endian_byte_swap && a->pix_set_resolution;
    // A corrupt file is reported once, by the adapter; leptonica's own lines would repeat it.
    if (a->ok) a->set_stderr_handler(ctess_quiet);
}

int ctess_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ctess_load_once);
    return ctess_api_storage()->ok;
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

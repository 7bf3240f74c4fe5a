#ifndef CQPDF_H
#define CQPDF_H
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

// libqpdf is loaded on first use (dlopen), not at process start: only a scans run that meets an
// image-only PDF page needs it, and it is optional (poppler decodes what qpdf is not asked to).
// qpdf's C API is declared in cqpdf.c by its stable ABI, so building needs no libqpdf-dev.
//
// Swift sees an opaque document and plain structs: qpdf's object handles stay inside cqpdf.c.
// A document is not thread-safe: one call at a time per document. Decoding an image's stream
// (`cqpdf_image_gray`) needs no document and may run beside it.

typedef struct cqpdf_document cqpdf_document;

/// Loads libqpdf once per process; 0 when it (or a function) is missing.
int cqpdf_load(void);

/// Opens a PDF from memory; the bytes are copied (qpdf reads them in place for as long as the
/// document is open). NULL when libqpdf is missing or cannot read the file.
cqpdf_document *cqpdf_open(const unsigned char *data, size_t size);
void cqpdf_close(cqpdf_document *doc);

/// How an image's stream is compressed.
typedef enum { CQPDF_FILTER_NONE = 0, CQPDF_FILTER_FLATE = 1, CQPDF_FILTER_DCT = 2 } cqpdf_filter;

/// A page's scanned image as its PDF stores it: the stream's raw (still compressed) bytes and
/// what its dictionary says of them. Only kinds `cqpdf_image_gray` or a JPEG reader decodes
/// to the same pixels poppler would are described: grey or RGB at 8 bits, grey at 1 bit.
typedef struct {
    int width, height;
    int bits;              // 1 or 8
    int components;        // 1 (grey) or 3 (RGB)
    int inverted;          // /Decode [1 0]: 0 is white
    cqpdf_filter filter;
    int png_predictor;     // Flate rows carry PNG predictor tags (/Predictor 10–15)
    unsigned char *data;   // malloc'ed: free with cqpdf_image_free
    size_t size;
} cqpdf_image;

/// Finds page `index`'s largest image XObject (by width x height, in its resources or one
/// Form XObject down) and, when it is of a kind described above and at most `max_pixels`,
/// fills `*image` with its raw stream: 1. 0 when there is none or it is of another kind.
int cqpdf_page_image(cqpdf_document *doc, int index, long max_pixels, cqpdf_image *image);
void cqpdf_image_free(cqpdf_image *image);

/// Decodes a Flate or uncompressed `image` into `gray`: 8-bit grey, 0 black, rows `stride` bytes
/// apart (at least `width`). 0 when its stream is corrupt or does not hold exactly its pixels.
int cqpdf_image_gray(const cqpdf_image *image, unsigned char *gray, size_t stride);

#endif

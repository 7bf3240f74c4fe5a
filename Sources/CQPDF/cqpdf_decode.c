#include "cqpdf.h"
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// An image's Flate stream is inflated here a row at a time into the grey bitmap, not by qpdf:
// qpdf would hold the whole decoded stream twice (three bytes a pixel for RGB), and inflate as
// much as the stream holds, where a small stream can hold gigabytes.

/// One row of a stream as its PDF stores it: the packed samples, after a PNG predictor's tag byte.
typedef struct {
    const cqpdf_image *image;
    size_t samples;      // bytes of packed samples a row
    size_t pixel_bytes;  // the PNG predictor's step back: bytes a pixel, at least 1
    unsigned char *row, *previous;
} rows_t;

static unsigned char paeth(int left, int up, int up_left) {
    int p = left + up - up_left;
    int pa = abs(p - left), pb = abs(p - up), pc = abs(p - up_left);
    return (unsigned char)(pa <= pb && pa <= pc ? left : pb <= pc ? up : up_left);
}

/// Undoes the PNG predictor named by `tag` on `row` (above it `previous`); 0 for an unknown tag.
static int unpredict(unsigned char tag, unsigned char *row, const unsigned char *previous, size_t n, size_t step) {
    switch (tag) {
    case 0: break;
    case 1: for (size_t i = step; i < n; i++) row[i] += row[i - step]; break;
    case 2: for (size_t i = 0; i < n; i++) row[i] += previous[i]; break;
    case 3: for (size_t i = 0; i < n; i++) row[i] += (unsigned char)(((i >= step ? row[i - step] : 0) + previous[i]) >> 1); break;
    case 4:
        for (size_t i = 0; i < n; i++)
            row[i] += paeth(i >= step ? row[i - step] : 0, previous[i], i >= step ? previous[i - step] : 0);
        break;
    default: return 0;
    }
    return 1;
}

/// Writes a row of packed samples as grey bytes, 0 black (luma as cpoppler.c computes it).
static void write_gray(const cqpdf_image *image, const unsigned char *samples, unsigned char *out) {
    long w = image->width;
    if (image->bits == 1) {
        for (long x = 0; x < w; x++) out[x] = ((samples[x >> 3] >> (7 - (x & 7))) & 1) ? 255 : 0;
    } else if (image->components == 3) {
        for (long x = 0; x < w; x++, samples += 3) out[x] = (unsigned char)((samples[0] * 77 + samples[1] * 150 + samples[2] * 29) >> 8);
    } else {
        memcpy(out, samples, (size_t)w);
    }
    if (image->inverted)
        for (long x = 0; x < w; x++) out[x] = (unsigned char)(255 - out[x]);
}

/// Inflates exactly `size` bytes into `out`; 0 when the stream ends or breaks first.
static int inflate_exactly(z_stream *z, unsigned char *out, size_t size) {
    z->next_out = out;
    z->avail_out = (uInt)size;
    while (z->avail_out > 0) {
        int rc = inflate(z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END && z->avail_out > 0) return 0;
        if (rc != Z_OK && rc != Z_STREAM_END) return 0;   // corrupt, or out of input (Z_BUF_ERROR)
    }
    return 1;
}

/// Whether the stream holds nothing after the image's rows (a single byte more is a mismatch).
static int inflate_finished(z_stream *z) {
    unsigned char probe;
    z->next_out = &probe;
    z->avail_out = 1;
    int rc = inflate(z, Z_NO_FLUSH);
    return z->avail_out == 1 && (rc == Z_STREAM_END || rc == Z_BUF_ERROR);
}

static int inflate_rows(rows_t *r, unsigned char *gray, size_t stride) {
    const cqpdf_image *image = r->image;
    size_t tag = image->png_predictor ? 1 : 0, stored = tag + r->samples;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (image->size > UINT32_MAX || inflateInit(&z) != Z_OK) return 0;
    z.next_in = image->data;
    z.avail_in = (uInt)image->size;
    int ok = 1;
    for (long y = 0; ok && y < image->height; y++) {
        ok = inflate_exactly(&z, r->row, stored)
            && (!tag || unpredict(r->row[0], r->row + 1, r->previous + 1, r->samples, r->pixel_bytes));
        if (!ok) break;
        write_gray(image, r->row + tag, gray + (size_t)y * stride);
        unsigned char *swap = r->row; r->row = r->previous; r->previous = swap;
    }
    ok = ok && inflate_finished(&z);
    inflateEnd(&z);
    return ok;
}

int cqpdf_image_gray(const cqpdf_image *image, unsigned char *gray, size_t stride) {
    if (image->filter == CQPDF_FILTER_DCT || image->width <= 0 || image->height <= 0 || stride < (size_t)image->width) return 0;
    size_t h = (size_t)image->height;
    rows_t r = { .image = image, .samples = ((size_t)image->width * (size_t)image->components * (size_t)image->bits + 7) / 8,
                 .pixel_bytes = image->bits == 8 ? (size_t)image->components : 1 };
    if (image->filter == CQPDF_FILTER_NONE) {
        if (image->size != r.samples * h) return 0;
        for (size_t y = 0; y < h; y++) write_gray(image, image->data + y * r.samples, gray + y * stride);
        return 1;
    }
    r.row = calloc(1, r.samples + 1);
    r.previous = calloc(1, r.samples + 1);     // the row above the first is zeros
    int ok = r.row && r.previous && inflate_rows(&r, gray, stride);
    free(r.row);
    free(r.previous);
    return ok;
}

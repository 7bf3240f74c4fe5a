#include <zlib.h>

// inflateInit2 is a macro (it passes zlib's version and the stream's size); Swift calls this.
// windowBits -15: raw deflate, as a zip entry stores it.
static inline int czlib_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -15);
}

// windowBits 15 + 16: a gzip member (`.fit.gz`, `.gpx.gz`), header and trailer checked by zlib.
static inline int czlib_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}

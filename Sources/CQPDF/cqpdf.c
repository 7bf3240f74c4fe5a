#include "cqpdf.h"
#include <stdlib.h>
#include <string.h>

// The few declarations of qpdf's C API (qpdf/qpdf-c.h) used, by its stable ABI.
typedef struct _qpdf_data *qpdf_data;
typedef unsigned int qpdf_oh;
typedef int QPDF_BOOL;
enum { QPDF_ERRORS = 1 << 1, QPDF_DECODE_LEVEL_NONE = 0 };

typedef struct {
    int ok;
    qpdf_data (*init)(void);
    void (*cleanup)(qpdf_data *);
    void (*silence_errors)(qpdf_data);
    void (*suppress_warnings)(qpdf_data, QPDF_BOOL);
    int (*read_memory)(qpdf_data, const char *, const char *, unsigned long long, const char *);
    QPDF_BOOL (*has_error)(qpdf_data);
    void *(*get_error)(qpdf_data);
    int (*page_count)(qpdf_data);
    qpdf_oh (*page_n)(qpdf_data, size_t);
    void (*release_all)(qpdf_data);
    qpdf_oh (*key)(qpdf_data, qpdf_oh, const char *);
    qpdf_oh (*stream_dict)(qpdf_data, qpdf_oh);
    QPDF_BOOL (*is_stream)(qpdf_data, qpdf_oh);
    QPDF_BOOL (*is_dictionary)(qpdf_data, qpdf_oh);
    QPDF_BOOL (*is_array)(qpdf_data, qpdf_oh);
    QPDF_BOOL (*is_null)(qpdf_data, qpdf_oh);
    QPDF_BOOL (*as_int)(qpdf_data, qpdf_oh, int *);
    QPDF_BOOL (*as_number)(qpdf_data, qpdf_oh, double *);
    QPDF_BOOL (*as_bool)(qpdf_data, qpdf_oh, QPDF_BOOL *);
    QPDF_BOOL (*as_name)(qpdf_data, qpdf_oh, const char **, size_t *);
    int (*array_count)(qpdf_data, qpdf_oh);
    qpdf_oh (*array_item)(qpdf_data, qpdf_oh, int);
    void (*begin_keys)(qpdf_data, qpdf_oh);
    QPDF_BOOL (*more_keys)(qpdf_data);
    const char *(*next_key)(qpdf_data);
    int (*stream_data)(qpdf_data, qpdf_oh, int, QPDF_BOOL *, unsigned char **, size_t *);
} cqpdf_api_t;

static cqpdf_api_t api;

/// Looks `name` up in `handle` into the table's `field`; 1 when it was found. An int, so that `&`
/// looks every symbol up (`&&` would stop at the first one missing).
#define CQPDF_SYM(handle, field, name) (int)((*(void **)&api.field = dlsym(handle, name)) != NULL)

static void cqpdf_load_once(void) {
    void *h = dlopen("libqpdf.so.29", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    int ok = CQPDF_SYM(h, init, "qpdf_init") & CQPDF_SYM(h, cleanup, "qpdf_cleanup")
        & CQPDF_SYM(h, silence_errors, "qpdf_silence_errors") & CQPDF_SYM(h, suppress_warnings, "qpdf_set_suppress_warnings")
        & CQPDF_SYM(h, read_memory, "qpdf_read_memory") & CQPDF_SYM(h, has_error, "qpdf_has_error")
        & CQPDF_SYM(h, get_error, "qpdf_get_error") & CQPDF_SYM(h, page_count, "qpdf_get_num_pages")
        & CQPDF_SYM(h, page_n, "qpdf_get_page_n") & CQPDF_SYM(h, release_all, "qpdf_oh_release_all")
        & CQPDF_SYM(h, key, "qpdf_oh_get_key") & CQPDF_SYM(h, stream_dict, "qpdf_oh_get_dict")
        & CQPDF_SYM(h, is_stream, "qpdf_oh_is_stream") & CQPDF_SYM(h, is_dictionary, "qpdf_oh_is_dictionary")
        & CQPDF_SYM(h, is_array, "qpdf_oh_is_array") & CQPDF_SYM(h, is_null, "qpdf_oh_is_null")
        & CQPDF_SYM(h, as_int, "qpdf_oh_get_value_as_int") & CQPDF_SYM(h, as_number, "qpdf_oh_get_value_as_number")
        & CQPDF_SYM(h, as_bool, "qpdf_oh_get_value_as_bool") & CQPDF_SYM(h, as_name, "qpdf_oh_get_value_as_name")
        & CQPDF_SYM(h, array_count, "qpdf_oh_get_array_n_items") & CQPDF_SYM(h, array_item, "qpdf_oh_get_array_item")
        & CQPDF_SYM(h, begin_keys, "qpdf_oh_begin_dict_key_iter") & CQPDF_SYM(h, more_keys, "qpdf_oh_dict_more_keys")
        & CQPDF_SYM(h, next_key, "qpdf_oh_dict_next_key") & CQPDF_SYM(h, stream_data, "qpdf_oh_get_stream_data");
    if (!ok) return;
    api.ok = 1;
}

#undef CQPDF_SYM

int cqpdf_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cqpdf_load_once);
    return api.ok;
}

struct cqpdf_document {
    qpdf_data q;
    char *bytes;
};

/// Whether qpdf met an error since the last call; it is taken, so that `qpdf_cleanup` does not
/// print it as unhandled.
static int take_error(qpdf_data q) {
    if (!api.has_error(q)) return 0;
    api.get_error(q);
    return 1;
}

cqpdf_document *cqpdf_open(const unsigned char *data, size_t size) {
    if (!cqpdf_load()) return NULL;
    cqpdf_document *doc = calloc(1, sizeof *doc);
    if (!doc || !(doc->bytes = malloc(size ? size : 1))) { free(doc); return NULL; }
    memcpy(doc->bytes, data, size);
    doc->q = api.init();
    // A damaged file's warnings and errors are the adapter's to report, in one line.
    api.silence_errors(doc->q);
    api.suppress_warnings(doc->q, 1);
    int rc = api.read_memory(doc->q, "scan", doc->bytes, size, NULL);
    if ((rc & QPDF_ERRORS) || take_error(doc->q)) { cqpdf_close(doc); return NULL; }
    return doc;
}

void cqpdf_close(cqpdf_document *doc) {
    if (!doc) return;
    take_error(doc->q);
    api.cleanup(&doc->q);
    free(doc->bytes);
    free(doc);
}

/// Whether `oh` is the name `name` (qpdf spells names with their slash).
static int is_name(qpdf_data q, qpdf_oh oh, const char *name) {
    const char *value = NULL;
    size_t length = 0;
    return api.as_name(q, oh, &value, &length) && length == strlen(name) && memcmp(value, name, length) == 0;
}

/// An integer entry of a dictionary, or `fallback` when it is missing; -1 when it is no integer.
static int int_key(qpdf_data q, qpdf_oh dict, const char *key, int fallback) {
    qpdf_oh value = api.key(q, dict, key);
    int n = 0;
    if (api.is_null(q, value)) return fallback;
    return api.as_int(q, value, &n) ? n : -1;
}

/// Grey or RGB: 1 or 3 components; 0 for any other colour space (Indexed, CMYK, Lab, named).
static int color_components(qpdf_data q, qpdf_oh space) {
    if (is_name(q, space, "/DeviceGray") || is_name(q, space, "/G") || is_name(q, space, "/CalGray")) return 1;
    if (is_name(q, space, "/DeviceRGB") || is_name(q, space, "/RGB") || is_name(q, space, "/CalRGB")) return 3;
    if (!api.is_array(q, space) || api.array_count(q, space) != 2) return 0;
    qpdf_oh family = api.array_item(q, space, 0), detail = api.array_item(q, space, 1);
    if (is_name(q, family, "/CalGray")) return 1;
    if (is_name(q, family, "/CalRGB")) return 3;
    if (!is_name(q, family, "/ICCBased") || !api.is_stream(q, detail)) return 0;
    int n = int_key(q, api.stream_dict(q, detail), "/N", 0);
    return n == 1 || n == 3 ? n : 0;
}

/// The stream's one filter, or -1 for any other (CCITTFax, JBIG2, JPX, a chain of two, ...).
static int stream_filter(qpdf_data q, qpdf_oh filter) {
    if (api.is_null(q, filter)) return CQPDF_FILTER_NONE;
    if (api.is_array(q, filter)) {
        int count = api.array_count(q, filter);
        if (count == 0) return CQPDF_FILTER_NONE;
        if (count != 1) return -1;
        filter = api.array_item(q, filter, 0);
    }
    if (is_name(q, filter, "/FlateDecode") || is_name(q, filter, "/Fl")) return CQPDF_FILTER_FLATE;
    if (is_name(q, filter, "/DCTDecode") || is_name(q, filter, "/DCT")) return CQPDF_FILTER_DCT;
    return -1;
}

/// 0 for the default /Decode, 1 for a grey image's [1 0], -1 for any other mapping.
static int decode_inverted(qpdf_data q, qpdf_oh decode, int components) {
    if (api.is_null(q, decode)) return 0;
    if (!api.is_array(q, decode) || api.array_count(q, decode) != 2 * components) return -1;
    int zero_one = 1, one_zero = 1;
    for (int i = 0; i < 2 * components; i++) {
        double v = -1;
        if (!api.as_number(q, api.array_item(q, decode, i), &v)) return -1;
        zero_one &= v == (i % 2 ? 1 : 0);
        one_zero &= v == (i % 2 ? 0 : 1);
    }
    return zero_one ? 0 : one_zero && components == 1 ? 1 : -1;
}

/// Whether a Flate stream's /DecodeParms are none, or PNG predictors over exactly the image's
/// rows (sets `png_predictor`); a TIFF predictor or other rows are left to poppler.
static int flate_params(qpdf_data q, qpdf_oh params, cqpdf_image *image) {
    if (api.is_array(q, params)) params = api.array_count(q, params) == 1 ? api.array_item(q, params, 0) : params;
    if (api.is_null(q, params)) return 1;
    if (!api.is_dictionary(q, params)) return 0;
    int predictor = int_key(q, params, "/Predictor", 1);
    if (predictor == 1) return 1;
    image->png_predictor = 1;
    return predictor >= 10 && predictor <= 15 && int_key(q, params, "/Colors", 1) == image->components
        && int_key(q, params, "/BitsPerComponent", 8) == image->bits && int_key(q, params, "/Columns", 1) == image->width;
}

/// Fills `image` from an image XObject's dictionary; 0 when it is of a kind left to poppler.
static int describe(qpdf_data q, qpdf_oh dict, long max_pixels, cqpdf_image *image) {
    memset(image, 0, sizeof *image);
    QPDF_BOOL mask = 0;
    api.as_bool(q, api.key(q, dict, "/ImageMask"), &mask);
    if (mask || !api.is_null(q, api.key(q, dict, "/SMask")) || !api.is_null(q, api.key(q, dict, "/Mask"))) return 0;
    image->width = int_key(q, dict, "/Width", -1);
    image->height = int_key(q, dict, "/Height", -1);
    if (image->width <= 0 || image->height <= 0 || (long long)image->width * image->height > max_pixels) return 0;
    image->bits = int_key(q, dict, "/BitsPerComponent", -1);
    image->components = color_components(q, api.key(q, dict, "/ColorSpace"));
    image->inverted = decode_inverted(q, api.key(q, dict, "/Decode"), image->components);
    int filter = stream_filter(q, api.key(q, dict, "/Filter"));
    qpdf_oh params = api.key(q, dict, "/DecodeParms");
    if (image->components == 0 || image->inverted < 0 || filter < 0) return 0;
    image->filter = (cqpdf_filter)filter;
    switch (image->filter) {
    case CQPDF_FILTER_DCT: return image->bits == 8 && !image->inverted && api.is_null(q, params);
    case CQPDF_FILTER_FLATE: if (!flate_params(q, params, image)) return 0; break;
    case CQPDF_FILTER_NONE: break;
    }
    return image->bits == 8 || (image->bits == 1 && image->components == 1);
}

enum { MAX_XOBJECTS = 64, MAX_RESOURCE_DEPTH = 32 };

/// The values of dictionary `dict`, up to `cap` (qpdf's C API walks one dictionary at a time,
/// so they are collected before any is looked into).
static int dict_values(qpdf_data q, qpdf_oh dict, qpdf_oh *values, int cap) {
    if (!api.is_dictionary(q, dict)) return 0;
    int n = 0;
    api.begin_keys(q, dict);
    while (n < cap && api.more_keys(q)) {
        const char *key = api.next_key(q);
        values[n++] = api.key(q, dict, key);
    }
    return n;
}

/// The image XObjects of `resources` and of its Form XObjects' own resources (one level down),
/// into `images`; how many there are (up to `cap`).
static int resource_images(qpdf_data q, qpdf_oh resources, qpdf_oh *images, int cap) {
    qpdf_oh xobjects[MAX_XOBJECTS], forms[MAX_XOBJECTS];
    int count = 0, form_count = 0;
    if (!api.is_dictionary(q, resources)) return 0;
    int n = dict_values(q, api.key(q, resources, "/XObject"), xobjects, MAX_XOBJECTS);
    for (int i = 0; i < n; i++) {
        if (!api.is_stream(q, xobjects[i])) continue;
        qpdf_oh subtype = api.key(q, api.stream_dict(q, xobjects[i]), "/Subtype");
        if (is_name(q, subtype, "/Image") && count < cap) images[count++] = xobjects[i];
        else if (is_name(q, subtype, "/Form")) forms[form_count++] = xobjects[i];
    }
    for (int f = 0; f < form_count; f++) {
        qpdf_oh form_resources = api.key(q, api.stream_dict(q, forms[f]), "/Resources");
        if (!api.is_dictionary(q, form_resources)) continue;
        n = dict_values(q, api.key(q, form_resources, "/XObject"), xobjects, MAX_XOBJECTS);
        for (int i = 0; i < n; i++)
            if (api.is_stream(q, xobjects[i]) && is_name(q, api.key(q, api.stream_dict(q, xobjects[i]), "/Subtype"), "/Image") && count < cap)
                images[count++] = xobjects[i];
    }
    return count;
}

/// Page `page`'s resources, its own or inherited from the page tree above it.
static qpdf_oh page_resources(qpdf_data q, qpdf_oh page) {
    qpdf_oh resources = page;
    for (int depth = 0; depth < MAX_RESOURCE_DEPTH && api.is_dictionary(q, page); depth++) {
        resources = api.key(q, page, "/Resources");
        if (!api.is_null(q, resources)) return resources;
        page = api.key(q, page, "/Parent");
    }
    return resources;
}

/// The page's image: its resources must hold exactly one, as poppler found it draws one. With
/// more (resources a writer shares between pages), which is this page's is left to poppler.
static int find_page_image(qpdf_data q, int index, long max_pixels, cqpdf_image *image) {
    if (index < 0 || index >= api.page_count(q)) return 0;
    qpdf_oh images[2];
    if (resource_images(q, page_resources(q, api.page_n(q, (size_t)index)), images, 2) != 1) return 0;
    if (!describe(q, api.stream_dict(q, images[0]), max_pixels, image)) return 0;
    return (api.stream_data(q, images[0], QPDF_DECODE_LEVEL_NONE, NULL, &image->data, &image->size) & QPDF_ERRORS) == 0
        && image->data != NULL;
}

int cqpdf_page_image(cqpdf_document *doc, int index, long max_pixels, cqpdf_image *image) {
    memset(image, 0, sizeof *image);
    int found = find_page_image(doc->q, index, max_pixels, image);
    if (take_error(doc->q)) found = 0;
    api.release_all(doc->q);      // handles are the document's until released
    if (!found) cqpdf_image_free(image);
    return found;
}

void cqpdf_image_free(cqpdf_image *image) {
    free(image->data);
    image->data = NULL;
    image->size = 0;
}

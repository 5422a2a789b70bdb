#include "CImageCodecs.h"
#include "MemoryInput.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <jerror.h>
#include <jpeglib.h>
#include <png.h>
#include <webp/decode.h>
#include <webp/demux.h>

static int fail(char *error, size_t error_size, const char *format, ...) {
    if (error_size > 0) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(error, error_size, format, arguments);
        va_end(arguments);
    }
    return -1;
}

static int too_many_pixels(uint64_t width, uint64_t height, uint64_t maximum_pixels) {
    return width == 0 || height == 0 || width * height > maximum_pixels;
}

// MARK: PNG (libpng)

struct png_context {
    const uint8_t *data;
    size_t size;
    size_t position;
    char *error;
    size_t error_size;
};

static void png_read_bytes(png_structp png, png_bytep out, size_t count) {
    struct png_context *context = png_get_io_ptr(png);
    if (count > context->size - context->position) {
        png_error(png, "the file ends before the picture does");
    }
    memcpy(out, context->data + context->position, count);
    context->position += count;
}

static void png_on_error(png_structp png, png_const_charp message) {
    struct png_context *context = png_get_error_ptr(png);
    fail(context->error, context->error_size, "the PNG data is damaged (%s)", message);
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

int image_codecs_decode_png(const uint8_t *data, size_t size, uint64_t maximum_pixels,
                            uint32_t *width, uint32_t *height, char *error, size_t error_size) {
    struct png_context context = {data, size, 0, error, error_size};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, png_on_error, png_on_warning);
    if (png == NULL) return fail(error, error_size, "out of memory");
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        return fail(error, error_size, "out of memory");
    }
    png_bytep volatile row = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(row);
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    png_set_user_limits(png, 65535, 65535);
    png_set_chunk_malloc_max(png, 8 * 1024 * 1024);
    png_set_read_fn(png, &context, png_read_bytes);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info);
    png_uint_32 h = png_get_image_height(png, info);
    if (too_many_pixels(w, h, maximum_pixels)) {
        png_destroy_read_struct(&png, &info, NULL);
        return fail(error, error_size, "it has %u×%u pixels, more than %llu", w, h,
                    (unsigned long long)maximum_pixels);
    }
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    row = malloc(png_get_rowbytes(png, info));
    if (row == NULL) png_error(png, "out of memory");
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < h; y++) png_read_row(png, row, NULL);
    }
    png_read_end(png, NULL);
    free(row);
    png_destroy_read_struct(&png, &info, NULL);
    *width = w;
    *height = h;
    return 0;
}

// MARK: JPEG (libjpeg-turbo)

struct jpeg_context {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    int damaged;
    char *error;
    size_t error_size;
};

static void jpeg_on_error(j_common_ptr info) {
    struct jpeg_context *context = (struct jpeg_context *)info->err;
    char message[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, message);
    fail(context->error, context->error_size, "the JPEG data is damaged (%s)", message);
    longjmp(context->jump, 1);
}

/// libjpeg only warns, and paints grey, when the data stops early or is corrupt; those are
/// failures here. Other warnings (say, stray bytes between markers) are common in real files
/// that every browser shows, and are let through.
static void jpeg_on_message(j_common_ptr info, int level) {
    struct jpeg_context *context = (struct jpeg_context *)info->err;
    if (level >= 0 || context->damaged) return;
    int code = info->err->msg_code;
    if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER) {
        context->damaged = 1;
        fail(context->error, context->error_size, "the JPEG data ends before the picture does");
    } else if (code == JWRN_HUFF_BAD_CODE || code == JWRN_BOGUS_PROGRESSION) {
        context->damaged = 1;
        char message[JMSG_LENGTH_MAX];
        (*info->err->format_message)(info, message);
        fail(context->error, context->error_size, "the JPEG data is damaged (%s)", message);
    }
}

int image_codecs_decode_jpeg(const uint8_t *data, size_t size, uint64_t maximum_pixels,
                             uint32_t *width, uint32_t *height, char *error, size_t error_size) {
    struct jpeg_decompress_struct info;
    struct jpeg_context context;
    memset(&context, 0, sizeof context);
    context.error = error;
    context.error_size = error_size;
    info.err = jpeg_std_error(&context.manager);
    context.manager.error_exit = jpeg_on_error;
    context.manager.emit_message = jpeg_on_message;
    JSAMPROW volatile row = NULL;
    if (setjmp(context.jump)) {
        free(row);
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    info.mem->max_memory_to_use = 512L * 1024 * 1024;
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    uint32_t w = info.image_width, h = info.image_height;
    if (too_many_pixels(w, h, maximum_pixels)) {
        jpeg_destroy_decompress(&info);
        return fail(error, error_size, "it has %u×%u pixels, more than %llu", w, h,
                    (unsigned long long)maximum_pixels);
    }
    // Every coefficient is still entropy-decoded at 1/8 scale (that is where damage shows);
    // only the inverse DCT and the colour conversion get cheaper.
    info.scale_num = 1;
    info.scale_denom = 8;
    info.dct_method = JDCT_IFAST;
    info.do_fancy_upsampling = FALSE;
    jpeg_start_decompress(&info);
    row = malloc((size_t)info.output_width * (size_t)info.output_components);
    if (row == NULL) {
        fail(error, error_size, "out of memory");
        longjmp(context.jump, 1);
    }
    while (info.output_scanline < info.output_height && !context.damaged) {
        JSAMPROW rows[1] = {row};
        jpeg_read_scanlines(&info, rows, 1);
    }
    if (!context.damaged) jpeg_finish_decompress(&info);
    free(row);
    jpeg_destroy_decompress(&info);
    if (context.damaged) return -1;
    *width = w;
    *height = h;
    return 0;
}

// MARK: WebP (libwebp, libwebpdemux)

static const char *webp_status(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "the WebP data is damaged";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "it uses a WebP feature this server does not support";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the WebP data ends before the picture does";
    default: return "the WebP data can't be decoded";
    }
}

int image_codecs_decode_webp(const uint8_t *data, size_t size, uint64_t maximum_pixels,
                             uint32_t *width, uint32_t *height, char *error, size_t error_size) {
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(data, size, &features);
    if (status != VP8_STATUS_OK) return fail(error, error_size, "%s", webp_status(status));
    int w = features.width, h = features.height;
    if (w <= 0 || h <= 0 || too_many_pixels((uint64_t)w, (uint64_t)h, maximum_pixels)) {
        return fail(error, error_size, "it has %d×%d pixels, more than %llu", w, h,
                    (unsigned long long)maximum_pixels);
    }
    if (features.has_animation) {
        WebPAnimDecoderOptions options;
        if (!WebPAnimDecoderOptionsInit(&options)) return fail(error, error_size, "libwebp is unusable");
        WebPData whole = {data, size};
        WebPAnimDecoder *decoder = WebPAnimDecoderNew(&whole, &options);
        if (decoder == NULL) return fail(error, error_size, "the animated WebP data is damaged");
        int frames = 0;
        while (WebPAnimDecoderHasMoreFrames(decoder)) {
            uint8_t *pixels;
            int timestamp;
            if (!WebPAnimDecoderGetNext(decoder, &pixels, &timestamp)) {
                WebPAnimDecoderDelete(decoder);
                return fail(error, error_size, "frame %d of the animated WebP data is damaged", frames + 1);
            }
            frames++;
        }
        WebPAnimDecoderDelete(decoder);
        if (frames == 0) return fail(error, error_size, "the animated WebP has no frames");
    } else {
        WebPDecoderConfig config;
        if (!WebPInitDecoderConfig(&config)) return fail(error, error_size, "libwebp is unusable");
        // The whole bitstream is decoded either way; a reduced output keeps memory small.
        config.options.use_scaling = 1;
        config.options.scaled_width = w / 8 > 0 ? w / 8 : 1;
        config.options.scaled_height = h / 8 > 0 ? h / 8 : 1;
        config.output.colorspace = MODE_RGBA;
        status = WebPDecode(data, size, &config);
        WebPFreeDecBuffer(&config.output);
        if (status != VP8_STATUS_OK) return fail(error, error_size, "%s", webp_status(status));
    }
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return 0;
}

// MARK: GIF (giflib)

static int gif_fail(GifFileType *gif, char *error, size_t error_size, int code) {
    const char *reason = code == D_GIF_ERR_READ_FAILED ? "the file ends before the picture does" : GifErrorString(code);
    fail(error, error_size, "the GIF data is damaged (%s)", reason ? reason : "unknown error");
    int ignored;
    DGifCloseFile(gif, &ignored);
    return -1;
}

int image_codecs_decode_gif(const uint8_t *data, size_t size, uint64_t maximum_pixels,
                            uint32_t *width, uint32_t *height, char *error, size_t error_size) {
    struct memory_input context = {data, size, 0};
    int code = 0;
    GifFileType *gif = DGifOpen(&context, memory_input_gif_read, &code);
    if (gif == NULL) {
        const char *reason = GifErrorString(code);
        return fail(error, error_size, "the GIF data is damaged (%s)", reason ? reason : "unknown error");
    }
    int w = gif->SWidth, h = gif->SHeight;
    if (w <= 0 || h <= 0 || too_many_pixels((uint64_t)w, (uint64_t)h, maximum_pixels)) {
        DGifCloseFile(gif, &code);
        return fail(error, error_size, "it has %d×%d pixels, more than %llu", w, h,
                    (unsigned long long)maximum_pixels);
    }
    GifPixelType *line = NULL;
    int frames = 0;
    GifRecordType record;
    do {
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) {
            free(line);
            return gif_fail(gif, error, error_size, gif->Error);
        }
        if (record == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(gif) == GIF_ERROR) {
                free(line);
                return gif_fail(gif, error, error_size, gif->Error);
            }
            int frame_width = gif->Image.Width, frame_height = gif->Image.Height;
            if (frame_width <= 0 || frame_height <= 0 ||
                too_many_pixels((uint64_t)frame_width, (uint64_t)frame_height, maximum_pixels)) {
                free(line);
                DGifCloseFile(gif, &code);
                return fail(error, error_size, "frame %d is %d×%d pixels", frames + 1, frame_width, frame_height);
            }
            GifPixelType *wider = realloc(line, (size_t)frame_width);
            if (wider == NULL) {
                free(line);
                DGifCloseFile(gif, &code);
                return fail(error, error_size, "out of memory");
            }
            line = wider;
            for (int y = 0; y < frame_height; y++) {
                if (DGifGetLine(gif, line, frame_width) == GIF_ERROR) {
                    free(line);
                    return gif_fail(gif, error, error_size, gif->Error);
                }
            }
            frames++;
        } else if (record == EXTENSION_RECORD_TYPE) {
            int extension_code;
            GifByteType *extension;
            if (DGifGetExtension(gif, &extension_code, &extension) == GIF_ERROR) {
                free(line);
                return gif_fail(gif, error, error_size, gif->Error);
            }
            while (extension != NULL) {
                if (DGifGetExtensionNext(gif, &extension) == GIF_ERROR) {
                    free(line);
                    return gif_fail(gif, error, error_size, gif->Error);
                }
            }
        }
    } while (record != TERMINATE_RECORD_TYPE);
    free(line);
    DGifCloseFile(gif, &code);
    if (frames == 0) return fail(error, error_size, "the GIF has no picture in it");
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return 0;
}

// Whole-bitmap decoding for drawing backgrounds into rendered pictures (see CImageCodecs.h).
#include "CImageCodecs.h"
#include "MemoryInput.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <jpeglib.h>
#include <png.h>
#include <webp/decode.h>
#include <webp/demux.h>

static int bitmap_fail(char *error, size_t error_size, const char *format, ...) {
    if (error_size > 0) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(error, error_size, format, arguments);
        va_end(arguments);
    }
    return -1;
}

/// Straight BGRA to premultiplied, in place.
static void premultiply(uint8_t *pixels, size_t count) {
    for (size_t i = 0; i < count; i++) {
        uint8_t *p = pixels + i * 4;
        unsigned alpha = p[3];
        if (alpha == 255) continue;
        p[0] = (uint8_t)((p[0] * alpha + 127) / 255);
        p[1] = (uint8_t)((p[1] * alpha + 127) / 255);
        p[2] = (uint8_t)((p[2] * alpha + 127) / 255);
    }
}

static int decode_png_bitmap(const uint8_t *data, size_t size, uint64_t maximum_pixels, uint32_t *width,
                             uint32_t *height, uint8_t **pixels, char *error, size_t error_size) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        return bitmap_fail(error, error_size, "the PNG data is damaged (%s)", image.message);
    }
    if ((uint64_t)image.width * image.height > maximum_pixels) {
        png_image_free(&image);
        return bitmap_fail(error, error_size, "the image is too large");
    }
    image.format = PNG_FORMAT_BGRA;
    uint8_t *buffer = malloc(PNG_IMAGE_SIZE(image));
    if (!buffer) {
        png_image_free(&image);
        return bitmap_fail(error, error_size, "out of memory");
    }
    if (!png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
        free(buffer);
        return bitmap_fail(error, error_size, "the PNG data is damaged (%s)", image.message);
    }
    *width = image.width;
    *height = image.height;
    premultiply(buffer, (size_t)image.width * image.height);
    *pixels = buffer;
    return 0;
}

struct bitmap_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
};

static void bitmap_jpeg_exit(j_common_ptr info) {
    longjmp(((struct bitmap_jpeg_error *)info->err)->jump, 1);
}

static int decode_jpeg_bitmap(const uint8_t *data, size_t size, uint64_t maximum_pixels, uint32_t *width,
                              uint32_t *height, uint8_t **pixels, char *error, size_t error_size) {
    struct jpeg_decompress_struct info;
    struct bitmap_jpeg_error failure;
    uint8_t *volatile buffer = NULL;
    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = bitmap_jpeg_exit;
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&info);
        free(buffer);
        return bitmap_fail(error, error_size, "the JPEG data is damaged");
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    if ((uint64_t)info.image_width * info.image_height > maximum_pixels) {
        jpeg_destroy_decompress(&info);
        return bitmap_fail(error, error_size, "the image is too large");
    }
    info.out_color_space = JCS_EXT_BGRA;
    jpeg_start_decompress(&info);
    size_t stride = (size_t)info.output_width * 4;
    buffer = malloc(stride * info.output_height);
    if (!buffer) longjmp(failure.jump, 1);
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = buffer + stride * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    *width = info.output_width;
    *height = info.output_height;
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    *pixels = buffer;
    return 0;
}

static int decode_webp_bitmap(const uint8_t *data, size_t size, uint64_t maximum_pixels, uint32_t *width,
                              uint32_t *height, uint8_t **pixels, char *error, size_t error_size) {
    WebPData webp = {data, size};
    WebPAnimDecoderOptions options;
    WebPAnimDecoderOptionsInit(&options);
    options.color_mode = MODE_bgrA;  // premultiplied
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&webp, &options);
    if (!decoder) return bitmap_fail(error, error_size, "the WebP data is damaged");
    WebPAnimInfo info;
    uint8_t *frame = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetInfo(decoder, &info) ||
        (uint64_t)info.canvas_width * info.canvas_height > maximum_pixels ||
        !WebPAnimDecoderGetNext(decoder, &frame, &timestamp)) {
        WebPAnimDecoderDelete(decoder);
        return bitmap_fail(error, error_size, "the WebP data is damaged or too large");
    }
    size_t bytes = (size_t)info.canvas_width * info.canvas_height * 4;
    uint8_t *buffer = malloc(bytes);
    if (!buffer) {
        WebPAnimDecoderDelete(decoder);
        return bitmap_fail(error, error_size, "out of memory");
    }
    memcpy(buffer, frame, bytes);
    WebPAnimDecoderDelete(decoder);
    *width = info.canvas_width;
    *height = info.canvas_height;
    *pixels = buffer;
    return 0;
}

static int decode_gif_bitmap(const uint8_t *data, size_t size, uint64_t maximum_pixels, uint32_t *width,
                             uint32_t *height, uint8_t **pixels, char *error, size_t error_size) {
    struct memory_input source = {data, size, 0};
    int status = 0;
    GifFileType *gif = DGifOpen(&source, memory_input_gif_read, &status);
    if (!gif) return bitmap_fail(error, error_size, "the GIF data is damaged");
    if (DGifSlurp(gif) != GIF_OK || gif->ImageCount < 1 || gif->SWidth <= 0 || gif->SHeight <= 0 ||
        (uint64_t)gif->SWidth * gif->SHeight > maximum_pixels) {
        DGifCloseFile(gif, &status);
        return bitmap_fail(error, error_size, "the GIF data is damaged or too large");
    }
    size_t canvas_width = (size_t)gif->SWidth, canvas_height = (size_t)gif->SHeight;
    uint8_t *buffer = calloc(canvas_width * canvas_height, 4);  // transparent
    if (!buffer) {
        DGifCloseFile(gif, &status);
        return bitmap_fail(error, error_size, "out of memory");
    }
    SavedImage *frame = &gif->SavedImages[0];
    ColorMapObject *colors = frame->ImageDesc.ColorMap ? frame->ImageDesc.ColorMap : gif->SColorMap;
    GraphicsControlBlock control = {0, false, 0, NO_TRANSPARENT_COLOR};
    DGifSavedExtensionToGCB(gif, 0, &control);
    if (colors) {
        for (int y = 0; y < frame->ImageDesc.Height; y++) {
            for (int x = 0; x < frame->ImageDesc.Width; x++) {
                long cx = (long)frame->ImageDesc.Left + x, cy = (long)frame->ImageDesc.Top + y;
                if (cx < 0 || cy < 0 || (size_t)cx >= canvas_width || (size_t)cy >= canvas_height) continue;
                int index = frame->RasterBits[(size_t)y * frame->ImageDesc.Width + x];
                if (index == control.TransparentColor || index >= colors->ColorCount) continue;
                uint8_t *p = buffer + ((size_t)cy * canvas_width + (size_t)cx) * 4;
                p[0] = colors->Colors[index].Blue;
                p[1] = colors->Colors[index].Green;
                p[2] = colors->Colors[index].Red;
                p[3] = 255;
            }
        }
    }
    DGifCloseFile(gif, &status);
    *width = (uint32_t)canvas_width;
    *height = (uint32_t)canvas_height;
    *pixels = buffer;
    return 0;
}

int image_codecs_decode_bitmap(const uint8_t *data, size_t size, uint64_t maximum_pixels, uint32_t *width,
                               uint32_t *height, uint8_t **pixels, char *error, size_t error_size) {
    *pixels = NULL;
    if (size >= 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0) {
        return decode_png_bitmap(data, size, maximum_pixels, width, height, pixels, error, error_size);
    }
    if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
        return decode_jpeg_bitmap(data, size, maximum_pixels, width, height, pixels, error, error_size);
    }
    if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) {
        return decode_webp_bitmap(data, size, maximum_pixels, width, height, pixels, error, error_size);
    }
    if (size >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0)) {
        return decode_gif_bitmap(data, size, maximum_pixels, width, height, pixels, error, error_size);
    }
    return bitmap_fail(error, error_size, "not a PNG, JPEG, WebP or GIF image");
}

void image_codecs_free(void *pointer) { free(pointer); }

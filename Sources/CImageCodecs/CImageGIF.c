// Writing GIFs with giflib: animated replays and still pictures (see CImageCodecs.h).
#include "CImageCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>

struct gif_output {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    int failed;
};

static int gif_write_bytes(GifFileType *gif, const GifByteType *data, int length) {
    struct gif_output *output = gif->UserData;
    if (output->size + (size_t)length > output->capacity) {
        size_t capacity = output->capacity ? output->capacity * 2 : 65536;
        while (capacity < output->size + (size_t)length) capacity *= 2;
        uint8_t *grown = realloc(output->bytes, capacity);
        if (!grown) {
            output->failed = 1;
            return 0;
        }
        output->bytes = grown;
        output->capacity = capacity;
    }
    memcpy(output->bytes + output->size, data, (size_t)length);
    output->size += (size_t)length;
    return length;
}

struct image_codecs_gif {
    GifFileType *gif;
    struct gif_output output;
    int width;
    int height;
};

static void gif_set_error(char *error, size_t error_size, const char *what, int code) {
    const char *reason = GifErrorString(code);
    if (error_size > 0) snprintf(error, error_size, "could not write the GIF (%s: %s)", what, reason ? reason : "?");
}

image_codecs_gif *image_codecs_gif_begin(int width, int height, const uint8_t *palette, int palette_size,
                                         int animated, int loops, char *error, size_t error_size) {
    if (width <= 0 || height <= 0 || width > 65535 || height > 65535 || palette_size < 1 || palette_size > 256) {
        if (error_size > 0) snprintf(error, error_size, "a %d×%d GIF of %d colours can't be written", width, height,
                                     palette_size);
        return NULL;
    }
    image_codecs_gif *writer = calloc(1, sizeof *writer);
    if (!writer) {
        if (error_size > 0) snprintf(error, error_size, "out of memory");
        return NULL;
    }
    writer->width = width;
    writer->height = height;
    int code = 0;
    writer->gif = EGifOpen(&writer->output, gif_write_bytes, &code);
    if (!writer->gif) {
        gif_set_error(error, error_size, "open", code);
        free(writer);
        return NULL;
    }
    int bits = 1;
    while ((1 << bits) < palette_size) bits++;
    ColorMapObject *map = GifMakeMapObject(1 << bits, NULL);
    if (!map) {
        gif_set_error(error, error_size, "palette", E_GIF_ERR_NOT_ENOUGH_MEM);
        image_codecs_gif_abandon(writer);
        return NULL;
    }
    for (int i = 0; i < (1 << bits); i++) {
        int source = i < palette_size ? i : 0;
        map->Colors[i].Red = palette[source * 3];
        map->Colors[i].Green = palette[source * 3 + 1];
        map->Colors[i].Blue = palette[source * 3 + 2];
    }
    EGifSetGifVersion(writer->gif, true);
    int status = EGifPutScreenDesc(writer->gif, width, height, bits, 0, map);
    GifFreeMapObject(map);
    if (status == GIF_ERROR) {
        gif_set_error(error, error_size, "screen", writer->gif->Error);
        image_codecs_gif_abandon(writer);
        return NULL;
    }
    if (animated) {
        // NETSCAPE2.0: play `loops` times (0: for ever).
        unsigned char application[] = "NETSCAPE2.0";
        unsigned char repeat[3] = {1, (unsigned char)(loops & 0xFF), (unsigned char)((loops >> 8) & 0xFF)};
        if (EGifPutExtensionLeader(writer->gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
            EGifPutExtensionBlock(writer->gif, 11, application) == GIF_ERROR ||
            EGifPutExtensionBlock(writer->gif, 3, repeat) == GIF_ERROR ||
            EGifPutExtensionTrailer(writer->gif) == GIF_ERROR) {
            gif_set_error(error, error_size, "loop", writer->gif->Error);
            image_codecs_gif_abandon(writer);
            return NULL;
        }
    }
    return writer;
}

int image_codecs_gif_frame(image_codecs_gif *writer, const uint8_t *indices, int delay, char *error,
                           size_t error_size) {
    GraphicsControlBlock control = {DISPOSE_DO_NOT, false, delay, NO_TRANSPARENT_COLOR};
    GifByteType extension[4];
    EGifGCBToExtension(&control, extension);
    if (EGifPutExtension(writer->gif, GRAPHICS_EXT_FUNC_CODE, 4, extension) == GIF_ERROR) {
        gif_set_error(error, error_size, "frame timing", writer->gif->Error);
        return -1;
    }
    if (EGifPutImageDesc(writer->gif, 0, 0, writer->width, writer->height, false, NULL) == GIF_ERROR) {
        gif_set_error(error, error_size, "frame", writer->gif->Error);
        return -1;
    }
    for (int y = 0; y < writer->height; y++) {
        GifPixelType *line = (GifPixelType *)(indices + (size_t)y * (size_t)writer->width);
        if (EGifPutLine(writer->gif, line, writer->width) == GIF_ERROR) {
            gif_set_error(error, error_size, "pixels", writer->gif->Error);
            return -1;
        }
    }
    return writer->output.failed ? -1 : 0;
}

int image_codecs_gif_end(image_codecs_gif *writer, uint8_t **gif_bytes, size_t *gif_size, char *error,
                         size_t error_size) {
    *gif_bytes = NULL;
    *gif_size = 0;
    int code = 0;
    int status = EGifCloseFile(writer->gif, &code);
    writer->gif = NULL;
    if (status == GIF_ERROR || writer->output.failed) {
        gif_set_error(error, error_size, "end", code);
        free(writer->output.bytes);
        free(writer);
        return -1;
    }
    *gif_bytes = writer->output.bytes;
    *gif_size = writer->output.size;
    free(writer);
    return 0;
}

void image_codecs_gif_abandon(image_codecs_gif *writer) {
    if (!writer) return;
    if (writer->gif) {
        int ignored;
        EGifCloseFile(writer->gif, &ignored);
    }
    free(writer->output.bytes);
    free(writer);
}

#ifndef C_IMAGE_CODECS_H
#define C_IMAGE_CODECS_H

#include <stddef.h>
#include <stdint.h>

/// Decodes every pixel of an image held in memory, with Debian's libpng, libjpeg-turbo, libwebp
/// (and libwebpdemux for animations) and giflib, and throws the pixels away: the point is to
/// know the file is a whole, undamaged picture. Each function returns 0 on success, with the
/// pixel size in `width` and `height`, or -1 with a sentence fragment in `error` (always
/// NUL-terminated, at most `error_size` bytes). Images of more than `maximum_pixels` pixels are
/// refused before any pixel memory is allocated; decoding uses one row of scratch memory
/// (PNG, JPEG, GIF) or a reduced-size output (WebP, scaled by 1/8), never a full bitmap.
/// The libraries' own error exits (which would end the process) are caught with setjmp.

int image_codecs_decode_png(const uint8_t *data, size_t size, uint64_t maximum_pixels,
                            uint32_t *width, uint32_t *height, char *error, size_t error_size);

int image_codecs_decode_jpeg(const uint8_t *data, size_t size, uint64_t maximum_pixels,
                             uint32_t *width, uint32_t *height, char *error, size_t error_size);

int image_codecs_decode_webp(const uint8_t *data, size_t size, uint64_t maximum_pixels,
                             uint32_t *width, uint32_t *height, char *error, size_t error_size);

int image_codecs_decode_gif(const uint8_t *data, size_t size, uint64_t maximum_pixels,
                            uint32_t *width, uint32_t *height, char *error, size_t error_size);

/// Decodes an image (PNG, JPEG, WebP or GIF; the first frame of an animation) to a bitmap for
/// drawing: premultiplied BGRA, 4 bytes a pixel, rows `width * 4` bytes apart (cairo's
/// CAIRO_FORMAT_ARGB32 on little-endian machines). Returns 0 with `*pixels` allocated (release
/// it with image_codecs_free), or -1 with a sentence fragment in `error`. Call it on images
/// the checking decoders above accepted.
int image_codecs_decode_bitmap(const uint8_t *data, size_t size, uint64_t maximum_pixels,
                               uint32_t *width, uint32_t *height, uint8_t **pixels,
                               char *error, size_t error_size);

/// A GIF89a written frame by frame with giflib, into memory: image_codecs_gif_begin with the one
/// global `palette` (1–256 RGB triples) and, for an animation, the NETSCAPE2.0 loop (`loops`
/// times; 0: for ever); then image_codecs_gif_frame for each frame (`width` × `height` palette
/// indices, one byte a pixel, shown `delay` hundredths of a second); then image_codecs_gif_end,
/// which hands over the bytes (release them with image_codecs_free), or image_codecs_gif_abandon.
/// Each returns NULL or -1 with a sentence fragment in `error` on failure; after a failed
/// frame, abandon the writer; a failed end has released it.
typedef struct image_codecs_gif image_codecs_gif;

image_codecs_gif *image_codecs_gif_begin(int width, int height, const uint8_t *palette, int palette_size,
                                         int animated, int loops, char *error, size_t error_size);
int image_codecs_gif_frame(image_codecs_gif *writer, const uint8_t *indices, int delay, char *error,
                           size_t error_size);
int image_codecs_gif_end(image_codecs_gif *writer, uint8_t **gif_bytes, size_t *gif_size, char *error,
                         size_t error_size);
void image_codecs_gif_abandon(image_codecs_gif *writer);

void image_codecs_free(void *pointer);

#endif

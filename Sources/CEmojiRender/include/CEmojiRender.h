#ifndef C_EMOJI_RENDER_H
#define C_EMOJI_RENDER_H

#include <stddef.h>
#include <stdint.h>

/// One emoji to draw: UTF-8 text centred at (x, y) in picture pixels (y down), `size` pixels tall,
/// turned `rotation` degrees clockwise about its centre.
typedef struct {
    const char *text;
    double x;
    double y;
    double size;
    double rotation;
} emoji_render_item;

/// Draws a picture with cairo and pango (colour emoji through fontconfig's emoji font, with
/// HarfBuzz shaping: ZWJ sequences, flags, skin tones) and encodes it as PNG.
///
/// The picture is `width` × `height` pixels on white. `background` (premultiplied BGRA, may be
/// NULL) is drawn with its top-left corner at (`background_x`, `background_y`), scaled by
/// `background_scale`. Returns 0 with `*png` allocated (free with emoji_render_free) and its
/// length in `*png_size`, or -1 with a message in `error`.
int emoji_render_png(int width, int height, const uint8_t *background, int background_width,
                     int background_height, double background_x, double background_y, double background_scale,
                     const emoji_render_item *items, size_t item_count, uint8_t **png, size_t *png_size,
                     char *error, size_t error_size);

/// The same picture as emoji_render_png, as pixels: premultiplied BGRA, 4 bytes a pixel, rows
/// `width * 4` bytes apart (`*pixels` allocated: free with emoji_render_free). For pictures that
/// are encoded some other way (GIF) or measured.
int emoji_render_bitmap(int width, int height, const uint8_t *background, int background_width,
                        int background_height, double background_x, double background_y, double background_scale,
                        const emoji_render_item *items, size_t item_count, uint8_t **pixels, char *error,
                        size_t error_size);

/// Draws one emoji, `size` pixels tall, centred in a `size` × `size` square exactly as
/// emoji_render_png draws it, into `pixels` (premultiplied BGRA, `size * size * 4` bytes, cleared
/// to transparent first): what an emoji's colour signature is measured from. Returns 0, or -1
/// with a message in `error`.
int emoji_render_sprite(const char *text, int size, uint8_t *pixels, char *error, size_t error_size);

/// One cell of a grid picture: the index of its text, and its centre in pixels (y down).
typedef struct {
    int32_t text;
    double x;
    double y;
} emoji_render_cell;

/// A grid of emojis on white as PNG: each of `texts` is drawn once, `size` pixels tall, and
/// painted at every cell that names it (cells with an index outside `texts` stay white).
/// Returns 0 with `*png` allocated (free with emoji_render_free), or -1 with a message.
int emoji_render_grid_png(int width, int height, const char *const *texts, size_t text_count,
                          const emoji_render_cell *cells, size_t cell_count, double size, uint8_t **png,
                          size_t *png_size, char *error, size_t error_size);

void emoji_render_free(void *pointer);

#endif

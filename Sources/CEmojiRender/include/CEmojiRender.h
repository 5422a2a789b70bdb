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

void emoji_render_free(void *pointer);

#endif

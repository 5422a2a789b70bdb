#include "CEmojiRender.h"

#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct png_buffer {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    int failed;
};

static cairo_status_t append_png(void *closure, const unsigned char *data, unsigned int length) {
    struct png_buffer *buffer = closure;
    if (buffer->size + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity * 2 : 65536;
        while (capacity < buffer->size + length) capacity *= 2;
        uint8_t *grown = realloc(buffer->bytes, capacity);
        if (!grown) {
            buffer->failed = 1;
            return CAIRO_STATUS_NO_MEMORY;
        }
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->size, data, length);
    buffer->size += length;
    return CAIRO_STATUS_SUCCESS;
}

/// What draws emojis as text: one pango layout and font, resized only when the size changes.
struct emoji_pen {
    PangoLayout *layout;
    PangoFontDescription *font;
    double size;
};

static void pen_open(struct emoji_pen *pen, cairo_t *cr) {
    pen->layout = pango_cairo_create_layout(cr);
    pen->font = pango_font_description_from_string("Noto Color Emoji");
    pen->size = -1;
}

static void pen_close(struct emoji_pen *pen) {
    pango_font_description_free(pen->font);
    g_object_unref(pen->layout);
}

/// Draws `text` centred at (x, y), `size` pixels tall, turned `rotation` degrees clockwise.
static void pen_draw(struct emoji_pen *pen, cairo_t *cr, const char *text, double x, double y, double size,
                     double rotation) {
    if (size != pen->size) {
        // The browser draws an emoji of size s with font-size s; its glyph is about s tall.
        pango_font_description_set_absolute_size(pen->font, size * PANGO_SCALE);
        pango_layout_set_font_description(pen->layout, pen->font);
        pen->size = size;
    }
    pango_layout_set_text(pen->layout, text, -1);
    PangoRectangle ink, logical;
    pango_layout_get_pixel_extents(pen->layout, &ink, &logical);
    if (rotation != 0) {
        cairo_save(cr);
        cairo_translate(cr, x, y);
        cairo_rotate(cr, rotation * G_PI / 180.0);
        pango_cairo_update_layout(cr, pen->layout);
        cairo_move_to(cr, -logical.width / 2.0, -logical.height / 2.0);
        pango_cairo_show_layout(cr, pen->layout);
        cairo_restore(cr);
        pango_cairo_update_layout(cr, pen->layout);
    } else {
        cairo_move_to(cr, x - logical.width / 2.0, y - logical.height / 2.0);
        pango_cairo_show_layout(cr, pen->layout);
    }
}

/// Encodes `surface` as PNG into `*png`; 0, or -1 with a message.
static int encode_png(cairo_surface_t *surface, uint8_t **png, size_t *png_size, char *error, size_t error_size) {
    struct png_buffer buffer = {NULL, 0, 0, 0};
    cairo_status_t status = cairo_surface_write_to_png_stream(surface, append_png, &buffer);
    if (status != CAIRO_STATUS_SUCCESS || buffer.failed) {
        free(buffer.bytes);
        snprintf(error, error_size, "could not encode the PNG (%s)", cairo_status_to_string(status));
        return -1;
    }
    *png = buffer.bytes;
    *png_size = buffer.size;
    return 0;
}

static cairo_surface_t *white_surface(int width, int height, cairo_t **cr, char *error, size_t error_size) {
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        snprintf(error, error_size, "could not make a %d×%d picture", width, height);
        cairo_surface_destroy(surface);
        return NULL;
    }
    *cr = cairo_create(surface);
    cairo_set_source_rgb(*cr, 1, 1, 1);
    cairo_paint(*cr);
    return surface;
}

/// The document picture emoji_render_png describes, drawn; NULL with a message on failure.
static cairo_surface_t *draw_document(int width, int height, const uint8_t *background, int background_width,
                                      int background_height, double background_x, double background_y,
                                      double background_scale, const emoji_render_item *items, size_t item_count,
                                      char *error, size_t error_size) {
    cairo_t *cr = NULL;
    cairo_surface_t *surface = white_surface(width, height, &cr, error, error_size);
    if (!surface) return NULL;

    if (background && background_width > 0 && background_height > 0) {
        cairo_surface_t *image = cairo_image_surface_create_for_data(
            (unsigned char *)background, CAIRO_FORMAT_ARGB32, background_width, background_height,
            background_width * 4);
        cairo_save(cr);
        cairo_translate(cr, background_x, background_y);
        cairo_scale(cr, background_scale, background_scale);
        cairo_set_source_surface(cr, image, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
        cairo_paint(cr);
        cairo_restore(cr);
        cairo_surface_destroy(image);
    }

    struct emoji_pen pen;
    pen_open(&pen, cr);
    for (size_t i = 0; i < item_count; i++) {
        const emoji_render_item *item = &items[i];
        pen_draw(&pen, cr, item->text, item->x, item->y, item->size, item->rotation);
    }
    pen_close(&pen);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    return surface;
}

int emoji_render_png(int width, int height, const uint8_t *background, int background_width,
                     int background_height, double background_x, double background_y, double background_scale,
                     const emoji_render_item *items, size_t item_count, uint8_t **png, size_t *png_size,
                     char *error, size_t error_size) {
    *png = NULL;
    *png_size = 0;
    cairo_surface_t *surface = draw_document(width, height, background, background_width, background_height,
                                             background_x, background_y, background_scale, items, item_count,
                                             error, error_size);
    if (!surface) return -1;
    int result = encode_png(surface, png, png_size, error, error_size);
    cairo_surface_destroy(surface);
    return result;
}

int emoji_render_bitmap(int width, int height, const uint8_t *background, int background_width,
                        int background_height, double background_x, double background_y, double background_scale,
                        const emoji_render_item *items, size_t item_count, uint8_t **pixels, char *error,
                        size_t error_size) {
    *pixels = NULL;
    cairo_surface_t *surface = draw_document(width, height, background, background_width, background_height,
                                             background_x, background_y, background_scale, items, item_count,
                                             error, error_size);
    if (!surface) return -1;
    size_t row = (size_t)width * 4;
    uint8_t *copy = malloc(row * (size_t)height);
    if (!copy) {
        cairo_surface_destroy(surface);
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    const uint8_t *data = cairo_image_surface_get_data(surface);
    int stride = cairo_image_surface_get_stride(surface);
    for (int y = 0; y < height; y++) memcpy(copy + (size_t)y * row, data + (size_t)y * (size_t)stride, row);
    cairo_surface_destroy(surface);
    *pixels = copy;
    return 0;
}

int emoji_render_sprite(const char *text, int size, uint8_t *pixels, char *error, size_t error_size) {
    cairo_surface_t *surface =
        cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_ARGB32, size, size, size * 4);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        snprintf(error, error_size, "could not make a %d×%d sprite", size, size);
        cairo_surface_destroy(surface);
        return -1;
    }
    memset(pixels, 0, (size_t)size * (size_t)size * 4);
    cairo_t *cr = cairo_create(surface);
    struct emoji_pen pen;
    pen_open(&pen, cr);
    pen_draw(&pen, cr, text, size / 2.0, size / 2.0, size, 0);
    pen_close(&pen);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    cairo_surface_destroy(surface);
    return 0;
}

int emoji_render_grid_png(int width, int height, const char *const *texts, size_t text_count,
                          const emoji_render_cell *cells, size_t cell_count, double size, uint8_t **png,
                          size_t *png_size, char *error, size_t error_size) {
    *png = NULL;
    *png_size = 0;
    cairo_t *cr = NULL;
    cairo_surface_t *surface = white_surface(width, height, &cr, error, error_size);
    if (!surface) return -1;
    // Each emoji is drawn once, as a sprite of the cell's size, then painted into every cell.
    int side = (int)size;
    if (side < size) side++;
    if (side < 1) side = 1;
    cairo_surface_t **sprites = calloc(text_count ? text_count : 1, sizeof *sprites);
    if (!sprites) {
        cairo_destroy(cr);
        cairo_surface_destroy(surface);
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < cell_count; i++) {
        const emoji_render_cell *cell = &cells[i];
        if (cell->text < 0 || (size_t)cell->text >= text_count) continue;
        cairo_surface_t *sprite = sprites[cell->text];
        if (!sprite) {
            sprite = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, side, side);
            cairo_t *sprite_cr = cairo_create(sprite);
            struct emoji_pen pen;
            pen_open(&pen, sprite_cr);
            pen_draw(&pen, sprite_cr, texts[cell->text], side / 2.0, side / 2.0, size, 0);
            pen_close(&pen);
            cairo_destroy(sprite_cr);
            sprites[cell->text] = sprite;
        }
        cairo_set_source_surface(cr, sprite, cell->x - side / 2.0, cell->y - side / 2.0);
        cairo_paint(cr);
    }
    for (size_t i = 0; i < text_count; i++) {
        if (sprites[i]) cairo_surface_destroy(sprites[i]);
    }
    free(sprites);
    cairo_destroy(cr);
    int result = encode_png(surface, png, png_size, error, error_size);
    cairo_surface_destroy(surface);
    return result;
}

void emoji_render_free(void *pointer) { free(pointer); }

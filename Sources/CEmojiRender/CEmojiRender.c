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

int emoji_render_png(int width, int height, const uint8_t *background, int background_width,
                     int background_height, double background_x, double background_y, double background_scale,
                     const emoji_render_item *items, size_t item_count, uint8_t **png, size_t *png_size,
                     char *error, size_t error_size) {
    *png = NULL;
    *png_size = 0;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        snprintf(error, error_size, "could not make a %d×%d picture", width, height);
        cairo_surface_destroy(surface);
        return -1;
    }
    cairo_t *cr = cairo_create(surface);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);

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

    PangoLayout *layout = pango_cairo_create_layout(cr);
    PangoFontDescription *font = pango_font_description_from_string("Noto Color Emoji");
    double last_size = -1;
    for (size_t i = 0; i < item_count; i++) {
        const emoji_render_item *item = &items[i];
        if (item->size != last_size) {
            // The browser draws an emoji of size s with font-size s; its glyph is about s tall.
            pango_font_description_set_absolute_size(font, item->size * PANGO_SCALE);
            pango_layout_set_font_description(layout, font);
            last_size = item->size;
        }
        pango_layout_set_text(layout, item->text, -1);
        PangoRectangle ink, logical;
        pango_layout_get_pixel_extents(layout, &ink, &logical);
        if (item->rotation != 0) {
            cairo_save(cr);
            cairo_translate(cr, item->x, item->y);
            cairo_rotate(cr, item->rotation * G_PI / 180.0);
            pango_cairo_update_layout(cr, layout);
            cairo_move_to(cr, -logical.width / 2.0, -logical.height / 2.0);
            pango_cairo_show_layout(cr, layout);
            cairo_restore(cr);
            pango_cairo_update_layout(cr, layout);
        } else {
            cairo_move_to(cr, item->x - logical.width / 2.0, item->y - logical.height / 2.0);
            pango_cairo_show_layout(cr, layout);
        }
    }
    pango_font_description_free(font);
    g_object_unref(layout);
    cairo_destroy(cr);

    struct png_buffer buffer = {NULL, 0, 0, 0};
    cairo_status_t status = cairo_surface_write_to_png_stream(surface, append_png, &buffer);
    cairo_surface_destroy(surface);
    if (status != CAIRO_STATUS_SUCCESS || buffer.failed) {
        free(buffer.bytes);
        snprintf(error, error_size, "could not encode the PNG (%s)", cairo_status_to_string(status));
        return -1;
    }
    *png = buffer.bytes;
    *png_size = buffer.size;
    return 0;
}

void emoji_render_free(void *pointer) { free(pointer); }

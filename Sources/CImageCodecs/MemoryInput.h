// An image held in memory, read through giflib, which asks for its bytes a few at a time
// (DGifOpen's input function): by the decoder (CImageBitmap.c) and the size check (CImageCodecs.c).
#ifndef CIMAGECODECS_MEMORY_INPUT_H
#define CIMAGECODECS_MEMORY_INPUT_H

#include <gif_lib.h>
#include <stdint.h>
#include <string.h>

struct memory_input {
    const uint8_t *data;
    size_t size;
    size_t position;
};

// giflib's input function over the memory_input in the GifFileType's UserData: up to `count`
// bytes, fewer at the end.
static inline int memory_input_gif_read(GifFileType *gif, GifByteType *out, int count) {
    struct memory_input *input = gif->UserData;
    size_t available = input->size - input->position;
    size_t taken = (size_t)count < available ? (size_t)count : available;
    memcpy(out, input->data + input->position, taken);
    input->position += taken;
    return (int)taken;
}

#endif

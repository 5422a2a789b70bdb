#ifndef C_ALLOCATION_STATS_H
#define C_ALLOCATION_STATS_H

#include <stddef.h>

/// Bytes currently allocated through malloc (glibc's mallinfo2), or 0 where unavailable.
/// Used by emojiart-bench to measure memory per undo step.
size_t allocation_stats_bytes_in_use(void);

#endif

#include "CAllocationStats.h"

#if defined(__linux__)
#include <malloc.h>

size_t allocation_stats_bytes_in_use(void) {
    return mallinfo2().uordblks;
}
#else
size_t allocation_stats_bytes_in_use(void) {
    return 0;
}
#endif

// Only the header (include/CEpoll.h) is needed; SwiftPM wants a source file in a C target.
#include "CEpoll.h"

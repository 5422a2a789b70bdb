// Linux's epoll, which Swift's Glibc module leaves out: the benchmark's thousands of windows are
// read on one thread, at the cost of the sockets that have something rather than of all of them.
#pragma once
#include <sys/epoll.h>

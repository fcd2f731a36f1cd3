#ifndef FENCEKIT_MEMORY_HINTS_H
#define FENCEKIT_MEMORY_HINTS_H

#include <stddef.h>

// Hints to the processor's caches that Swift cannot express: they change no value a program
// reads, only when memory arrives. The engine's batch evaluation uses them to ask for the
// tables a later fix will read while it works on the current one (Docs/Decisions).

// Asks for the cache line holding `address` to be brought close (all cache levels) for reading.
// Never faults, whatever the address: a prefetch of an unmapped address is dropped.
static inline void fencekit_prefetch(const void *address) {
  __builtin_prefetch(address, 0, 3);
}

// Asks the kernel to back the whole 2 MiB pages inside [start, start + length) with huge pages
// (Linux transparent huge pages, `MADV_HUGEPAGE`) as they are first written, and returns how
// many bytes that covers (0 on other systems, when the kernel refuses, or when the range holds
// no whole huge page). Pages already written stay as they are until the kernel's background
// thread gets to them: advise a table before filling it.
size_t fencekit_advise_huge_pages(void *start, size_t length);

#endif

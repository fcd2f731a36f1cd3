#ifndef FENCEKIT_MEMORY_HINTS_H
#define FENCEKIT_MEMORY_HINTS_H

// Hints to the processor's caches and to the allocator that Swift cannot express: they change
// no value a program reads, only when memory arrives or how much of it stays resident. The
// engine's batch evaluation uses the first to ask for the tables a later fix will read while it
// works on the current one (Docs/Decisions/0011); a large load uses the second to hand the
// pages of the zones it has taken in back to the system as it goes (Docs/Decisions/0012).

#if defined(__linux__)
#include <malloc.h>
#endif

// Asks for the cache line holding `address` to be brought close (all cache levels) for reading.
// Never faults, whatever the address: a prefetch of an unmapped address is dropped.
static inline void fencekit_prefetch(const void *address) {
  __builtin_prefetch(address, 0, 3);
}

// Returns the allocator's free pages to the system (glibc's malloc_trim: whole free pages
// inside the heap are given back, not only its top). Elsewhere it does nothing. Costs a walk of
// the allocator's free lists: call it now and then, not per allocation.
static inline void fencekit_release_free_memory(void) {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

#endif

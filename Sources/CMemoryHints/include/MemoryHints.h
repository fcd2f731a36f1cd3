#ifndef FENCEKIT_MEMORY_HINTS_H
#define FENCEKIT_MEMORY_HINTS_H

// Hints to the processor's caches that Swift cannot express: they change no value a program
// reads, only when memory arrives. The engine's batch evaluation uses them to ask for the
// tables a later fix will read while it works on the current one (Docs/Decisions/0011).

// Asks for the cache line holding `address` to be brought close (all cache levels) for reading.
// Never faults, whatever the address: a prefetch of an unmapped address is dropped.
static inline void fencekit_prefetch(const void *address) {
  __builtin_prefetch(address, 0, 3);
}

#endif

#ifndef FENCEKIT_MEMORY_HINTS_H
#define FENCEKIT_MEMORY_HINTS_H

// Hints to the processor's caches and to the system that Swift cannot express: they change no
// value a program reads (but for pages it said it will not read again), only when memory
// arrives or how much of it stays resident. The engine's batch evaluation uses the first to ask
// for the tables a later fix will read while it works on the current one
// (Docs/Decisions/0011); a large load uses the others to hand back the pages it is done with
// as it goes (Docs/Decisions/0012).

#if defined(__linux__)
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

// Asks for the cache line holding `address` to be brought close (all cache levels) for reading.
// Never faults, whatever the address: a prefetch of an unmapped address is dropped.
static inline void fencekit_prefetch(const void *address) {
  __builtin_prefetch(address, 0, 3);
}

// Returns the allocator's free pages to the system (glibc's malloc_trim: whole free pages
// inside the heap are given back, not only its top). Elsewhere it does nothing. Costs a walk of
// the allocator's free lists: call it now and then, not per allocation. Defined in
// MemoryHints.c: its first call is made once, alone (see there).
void fencekit_release_free_memory(void);

// Gives back to the system the whole pages between `from` and `to` (rounded inward: a page
// that holds anything outside the range is kept) of private memory the caller owns and will
// not read again; they read as zeros if it does (Linux's MADV_DONTNEED). Returns where the
// pages given back end (`from` rounded up to a page when there were none): the `from` of the
// next call over the bytes that follow. Elsewhere it gives nothing back and returns `from`.
static inline const void *fencekit_release_pages(const void *from, const void *to) {
#if defined(__linux__)
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t start = ((uintptr_t)from + page - 1) & ~(page - 1);
  uintptr_t end = (uintptr_t)to & ~(page - 1);
  if (end <= start) return (const void *)start;
  madvise((void *)start, end - start, MADV_DONTNEED);
  return (const void *)end;
#else
  (void)to;
  return from;
#endif
}

#endif

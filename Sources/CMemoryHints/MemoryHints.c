// The other hints are inline functions in include/MemoryHints.h; this file holds the one that
// needs state of its own in the process.
#include "MemoryHints.h"

#if defined(__GLIBC__)
#include <pthread.h>

static pthread_once_t fencekit_first_trim = PTHREAD_ONCE_INIT;

static void fencekit_trim(void) { malloc_trim(0); }

// glibc sets up its allocator on first use, marking it set up before it is: a second thread
// trimming meanwhile walks a half-made arena list. In a normal process the first malloc, long
// before any thread, sets it up; under ThreadSanitizer (whose allocator stands in for glibc's)
// the first malloc_trim does, and evaluators built on several threads at once crashed in it.
// The first call therefore runs once, alone; later ones run concurrently, as glibc allows.
void fencekit_release_free_memory(void) {
  pthread_once(&fencekit_first_trim, fencekit_trim);
  malloc_trim(0);
}
#else
void fencekit_release_free_memory(void) {}
#endif

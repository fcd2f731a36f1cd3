#include "MemoryHints.h"

#if defined(__linux__)
#include <stdint.h>
#include <sys/mman.h>

size_t fencekit_advise_huge_pages(void *start, size_t length) {
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t low = ((uintptr_t)start + huge - 1) & ~(huge - 1);
  uintptr_t high = ((uintptr_t)start + length) & ~(huge - 1);
  if (high <= low) return 0;
  if (madvise((void *)low, high - low, MADV_HUGEPAGE) != 0) return 0;
  return high - low;
}
#else
size_t fencekit_advise_huge_pages(void *start, size_t length) {
  (void)start;
  (void)length;
  return 0;
}
#endif

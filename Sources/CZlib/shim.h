// zlib, for reading `.gz` track and zone files transparently.
#include <zlib.h>
#include <stdio.h>

// gzopen takes a mode string; Swift passes it most simply through these fixed wrappers.
static inline gzFile CZlib_openForReading(const char *path) { return gzopen(path, "rb"); }
static inline gzFile CZlib_openForWriting(const char *path) { return gzopen(path, "wb6"); }
// Takes ownership of `descriptor` (gzclose closes it): pass a dup of standard input.
static inline gzFile CZlib_openDescriptorForReading(int descriptor) {
  return gzdopen(descriptor, "rb");
}

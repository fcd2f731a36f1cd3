// zlib, for reading `.gz` track and zone files transparently.
#include <zlib.h>
#include <stdio.h>

// gzopen takes a mode string; Swift passes it most simply through these fixed wrappers.
static inline gzFile CZlib_openForReading(const char *path) { return gzopen(path, "rb"); }
static inline gzFile CZlib_openForWriting(const char *path) { return gzopen(path, "wb6"); }
static inline gzFile CZlib_openStandardInput(void) { return gzdopen(0, "rb"); }

// zlib, for reading `.gz` track and zone files transparently.
#include <zlib.h>

// Only the reentrant (_r) half of the GEOS C API is visible to Swift.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

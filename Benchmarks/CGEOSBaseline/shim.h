// The GEOS C API for the benchmarks' "plain GEOS" baselines that FenceGEOS does not wrap
// (an STRtree queried with a box). Only the reentrant (_r) half is visible.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

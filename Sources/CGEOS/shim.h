// Only the reentrant (_r) half of the GEOS C API is visible to Swift.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

// GEOS 3.11 has no point-only (XY) prepared predicates, so each query builds a point. Moving one
// reused point through its coordinate sequence is not safe: GEOS caches a geometry's envelope
// and the C API cannot invalidate it (GEOSSTRtree_query_r then searches the old position).

// Prepared covers of (x, y): returns 1 on true, 0 on false, 2 on exception.
static inline char CGEOS_preparedCoversXY(
    GEOSContextHandle_t handle, const GEOSPreparedGeometry *prepared, double x, double y) {
  GEOSGeometry *point = GEOSGeom_createPointFromXY_r(handle, x, y);
  if (point == NULL) return 2;
  char result = GEOSPreparedCovers_r(handle, prepared, point);
  GEOSGeom_destroy_r(handle, point);
  return result;
}

// Prepared distance from (x, y) into *distance: returns 1 on success, 0 on exception.
static inline int CGEOS_preparedDistanceXY(
    GEOSContextHandle_t handle, const GEOSPreparedGeometry *prepared, double x, double y,
    double *distance) {
  GEOSGeometry *point = GEOSGeom_createPointFromXY_r(handle, x, y);
  if (point == NULL) return 0;
  int result = GEOSPreparedDistance_r(handle, prepared, point, distance);
  GEOSGeom_destroy_r(handle, point);
  return result;
}

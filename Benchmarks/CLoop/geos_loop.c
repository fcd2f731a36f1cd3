/*
 * geos_loop.c: the plain GEOS loop, FenceKit's reference for speed in the scaling runs
 * (Benchmarks/Scripts/scaling). It does what an obvious C program on GEOS does with the same
 * inputs as `fencebench run`, and nothing more:
 *
 *   1. load zones GeoJSON files (FeatureCollection, `.gz` read through zlib): each feature's
 *      `geometry` member goes to GEOS's GeoJSON reader; `properties.radius` is read here.
 *      Point with radius: circle of that many metres; Point without: circle of --point-radius;
 *      Polygon/MultiPolygon: polygon fence, prepared (GEOSPrepare_r); LineString and
 *      MultiLineString (GEOLINEs): counted and ignored;
 *   2. put every fence's box in a GEOSSTRtree (node capacity 10);
 *   3. read track CSV files (header row; columns by name) and sort the fixes stably by time;
 *   4. for each fix: query the tree with a GEOS point, test each candidate (circle: squared
 *      ECEF chord against the circle's chord limit; polygon: GEOSPreparedCovers_r) and compare
 *      the set of fences holding the device with its previous set: enters and exits.
 *
 * It prints one JSON object (counts and timings) on standard output. Errors: a message on
 * standard error naming the file and the line (and feature), exit status 1; usage: status 2.
 *
 * Usage:
 *   geos-loop --zones ZONES.geojson[.gz] [--zones MORE ...] TRACK.csv[.gz] [TRACK ...]
 *             [--point-radius M] [--validate | --repair] [--earth wgs84|sphere]
 *
 *   --point-radius M  radius in metres of Points without `radius` (default 100)
 *   --validate        GEOSisValid_r every polygon; stop with an error at an invalid one
 *   --repair          GEOSMakeValid_r the invalid ones (polygonal parts kept)
 *                     (default: neither; GEOS then gets whatever the file holds)
 *   --earth wgs84     (default) circles as the engine tests them: ECEF positions on the WGS84
 *                     ellipsoid, the chord limit from the radius at the centre's Gaussian
 *                     radius of curvature; counts then match the engine's
 *   --earth sphere    chord on a sphere of 6,371,008.8 m (the mean Earth radius); differs from
 *                     the engine by up to ~0.3 % of the radius, so fixes near a circle's edge
 *                     can land on the other side
 *
 * Fixes are rejected, without changing any state, as the engine rejects them: an invalid
 * coordinate, (0, 0), or a time not after the device's last accepted fix (duplicate, out of
 * order). No accuracy filter (the generated and AIS tracks have no accuracy column), no zone
 * rules: no minimum retrigger time, dwell, hysteresis or exit confirmations. So, with zones
 * that keep the rules' defaults, `enters` equals the engine's check-ins and `exits` its
 * check-outs (GEOLINE crossings aside).
 *
 * Build (Benchmarks/Scripts/scaling does this):
 *   cc -O2 -std=c11 -Wall -Wextra -Werror $(geos-config --cflags) geos_loop.c \
 *      $(geos-config --clibs) -lz -lm -o geos-loop
 *
 * Needs GEOS >= 3.11 (GeoJSON reader: 3.10; GEOSGeom_createRectangle_r: 3.11).
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <geos_c.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <zlib.h>

/* ---------------------------------------------------------------- small helpers */

static const char *program = "geos-loop";

static void die(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "%s: ", program);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
  exit(1);
}

static void usage(const char *message) {
  fprintf(stderr, "%s: %s\n", program, message);
  fprintf(stderr,
          "usage: geos-loop --zones ZONES.geojson [--zones MORE ...] TRACK.csv [TRACK ...]\n"
          "                 [--point-radius M] [--validate | --repair] [--earth wgs84|sphere]\n");
  exit(2);
}

static void *xrealloc(void *p, size_t size) {
  void *q = realloc(p, size ? size : 1);
  if (!q) die("out of memory (%zu bytes)", size);
  return q;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* GEOS reports errors through a handler; keep the last message for our own. */
static char geos_message[512];

static void geos_error(const char *message, void *userdata) {
  (void)userdata;
  snprintf(geos_message, sizeof geos_message, "%s", message);
}

static void geos_notice(const char *message, void *userdata) {
  (void)message;
  (void)userdata;
}

/* ---------------------------------------------------------------- the Earth */

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)
static const double WGS84_A = 6378137.0;
static const double WGS84_F = 1.0 / 298.257223563;
static const double SPHERE_R = 6371008.8;
static double wgs84_e2;        /* first eccentricity squared */
static double min_curvature;   /* a (1 - e2): the smallest radius of curvature */
static int use_sphere;

static void ecef(double lat, double lon, double *x, double *y, double *z) {
  double phi = lat * DEG, lambda = lon * DEG;
  double sp = sin(phi), cp = cos(phi);
  if (use_sphere) {
    *x = SPHERE_R * cp * cos(lambda);
    *y = SPHERE_R * cp * sin(lambda);
    *z = SPHERE_R * sp;
  } else {
    double n = WGS84_A / sqrt(1 - wgs84_e2 * sp * sp);
    *x = n * cp * cos(lambda);
    *y = n * cp * sin(lambda);
    *z = n * (1 - wgs84_e2) * sp;
  }
}

/* The squared chord of an arc of `radius` metres drawn around a centre at `lat`. */
static double chord_squared_limit(double lat, double radius) {
  double r = SPHERE_R;
  if (!use_sphere) { /* Gaussian radius sqrt(M N) at the centre, as the engine */
    double s = sin(lat * DEG), w = 1 - wgs84_e2 * s * s;
    double m = WGS84_A * (1 - wgs84_e2) / (w * sqrt(w));
    double n = WGS84_A / sqrt(w);
    r = sqrt(m * n);
  }
  double angle = radius / (2 * r);
  double chord = angle >= PI / 2 ? 2 * r : 2 * r * sin(angle);
  return chord * chord;
}

/* A box holding the circle, as the engine's Circle.boundingBox: latitude span from the
 * smallest radius of curvature, longitude span from the parallel nearest the pole, a relative
 * margin; all longitudes near a pole or across the antimeridian (conservative). */
static void circle_box(double lat, double lon, double radius, double box[4]) {
  const double margin = 1.0 + 1e-9;
  double dlat = radius / min_curvature / DEG * margin;
  double south = lat - dlat, north = lat + dlat;
  box[1] = south < -90 ? -90 : south;
  box[3] = north > 90 ? 90 : north;
  box[0] = -180;
  box[2] = 180;
  if (south <= -90 || north >= 90) return;
  double poleward = fmax(fabs(south), fabs(north)) * DEG;
  double ratio = radius * margin / (min_curvature * cos(poleward));
  if (ratio >= 1) return;
  double dlon = asin(ratio) / DEG * margin;
  if (lon - dlon < -180 || lon + dlon > 180) return;
  box[0] = lon - dlon;
  box[2] = lon + dlon;
}

/* ---------------------------------------------------------------- fences */

typedef struct {
  const GEOSPreparedGeometry *prepared; /* polygon fences; NULL for circles */
  double cx, cy, cz, chord2;            /* circles: ECEF centre, squared chord limit */
  double box[4];                        /* circles: west, south, east, north */
  GEOSGeometry *geometry;               /* polygon fences */
  int file;                             /* which --zones file */
} Fence;

static Fence *fences;
static size_t fence_count, fence_cap;
static size_t circle_count, polygon_count, line_count, repaired_count;
static long long vertex_count;

/* ---------------------------------------------------------------- a streaming JSON skipper */

/* The zones file is read in chunks into one buffer. Everything before the feature being read
 * is discarded between features, so the buffer holds about one feature (or one other
 * top-level member) at a time, whatever the file's size. Positions are indices, since the
 * buffer may move when it grows. */
typedef struct {
  gzFile gz;
  const char *path;
  char *buf;
  size_t len, cap, pos;
  int eof;
  long lines_before; /* newlines in the bytes already discarded */
} Src;

enum { CHUNK = 1 << 18 };

static int src_fill(Src *s) {
  if (s->eof) return 0;
  if (s->cap - s->len < CHUNK + 1) {
    s->cap = s->cap * 2 > s->len + CHUNK + 1 ? s->cap * 2 : s->len + CHUNK + 1;
    s->buf = xrealloc(s->buf, s->cap);
  }
  int n = gzread(s->gz, s->buf + s->len, CHUNK);
  if (n < 0) {
    int code;
    const char *message = gzerror(s->gz, &code);
    die("%s: cannot read: %s", s->path, code == Z_ERRNO ? strerror(errno) : message);
  }
  if (n == 0) {
    s->eof = 1;
    return 0;
  }
  s->len += (size_t)n;
  return 1;
}

static inline int peekc(Src *s) {
  while (s->pos >= s->len)
    if (!src_fill(s)) return -1;
  return (unsigned char)s->buf[s->pos];
}

static long line_at(const Src *s, size_t pos) {
  long line = s->lines_before + 1;
  for (size_t i = 0; i < pos && i < s->len; i++) line += s->buf[i] == '\n';
  return line;
}

static void src_discard(Src *s) {
  for (size_t i = 0; i < s->pos; i++) s->lines_before += s->buf[i] == '\n';
  memmove(s->buf, s->buf + s->pos, s->len - s->pos);
  s->len -= s->pos;
  s->pos = 0;
}

static void json_fail(Src *s, const char *what) {
  int c = peekc(s);
  if (c < 0) die("%s:%ld: %s, got the end of the file", s->path, line_at(s, s->pos), what);
  die("%s:%ld: %s, got '%c'", s->path, line_at(s, s->pos), what, c);
}

static void skip_ws(Src *s) {
  int c;
  while ((c = peekc(s)) == ' ' || c == '\n' || c == '\r' || c == '\t') s->pos++;
}

static void expect(Src *s, char c, const char *what) {
  skip_ws(s);
  if (peekc(s) != c) json_fail(s, what);
  s->pos++;
}

static void skip_string(Src *s) {
  s->pos++; /* the opening quote */
  for (;;) {
    int c = peekc(s);
    if (c < 0) json_fail(s, "unterminated string");
    s->pos++;
    if (c == '"') return;
    if (c == '\\') {
      if (peekc(s) < 0) json_fail(s, "unterminated string");
      s->pos++;
    }
  }
}

/* Skips one value (checking brackets only by depth: GEOS parses the geometry itself). */
static void skip_value(Src *s) {
  skip_ws(s);
  int c = peekc(s);
  if (c == '"') {
    skip_string(s);
    return;
  }
  if (c == '{' || c == '[') {
    int depth = 0;
    for (;;) {
      c = peekc(s);
      if (c < 0) json_fail(s, "unterminated object or array");
      if (c == '"') {
        skip_string(s);
        continue;
      }
      s->pos++;
      if (c == '{' || c == '[') depth++;
      else if ((c == '}' || c == ']') && --depth == 0) return;
    }
  }
  size_t start = s->pos;
  while ((c = peekc(s)) >= 0 && (isalnum(c) || c == '-' || c == '+' || c == '.')) s->pos++;
  if (s->pos == start) json_fail(s, "expected a JSON value");
}

/* Reads a member name; returns its span [*start, *end) (without the quotes). */
static void read_key(Src *s, size_t *start, size_t *end) {
  skip_ws(s);
  if (peekc(s) != '"') json_fail(s, "expected a member name");
  *start = s->pos + 1;
  skip_string(s);
  *end = s->pos - 1;
  expect(s, ':', "expected ':'");
  skip_ws(s);
}

static int key_is(const Src *s, size_t start, size_t end, const char *name) {
  size_t n = strlen(name);
  return end - start == n && memcmp(s->buf + start, name, n) == 0;
}

/* After a member: 1 when another follows (','), 0 at the closing bracket. */
static int next_member(Src *s, char close) {
  skip_ws(s);
  int c = peekc(s);
  if (c == ',') {
    s->pos++;
    return 1;
  }
  if (c == close) {
    s->pos++;
    return 0;
  }
  json_fail(s, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
  return 0;
}

/* ---------------------------------------------------------------- loading zones */

static GEOSContextHandle_t ctx;
static GEOSGeoJSONReader *geojson;
static double point_radius = 100;
static int validate_polygons, repair_polygons;

static Fence *new_fence(int file) {
  if (fence_count == fence_cap) {
    fence_cap = fence_cap ? fence_cap * 2 : 1024;
    fences = xrealloc(fences, fence_cap * sizeof *fences);
  }
  Fence *f = &fences[fence_count++];
  memset(f, 0, sizeof *f);
  f->file = file;
  return f;
}

/* The polygonal parts of MakeValid's result (which may hold lines and points too), as one
 * geometry; NULL when none has an area. Takes `g`. */
static GEOSGeometry *polygonal_parts(GEOSGeometry *g) {
  int type = GEOSGeomTypeId_r(ctx, g);
  if (type == GEOS_POLYGON || type == GEOS_MULTIPOLYGON) return g;
  GEOSGeometry **parts = NULL;
  size_t kept = 0, cap = 0;
  if (type == GEOS_GEOMETRYCOLLECTION) {
    int n = GEOSGetNumGeometries_r(ctx, g);
    for (int i = 0; i < n; i++) {
      const GEOSGeometry *part = GEOSGetGeometryN_r(ctx, g, i);
      int t = GEOSGeomTypeId_r(ctx, part);
      int m = t == GEOS_POLYGON ? 1 : t == GEOS_MULTIPOLYGON ? GEOSGetNumGeometries_r(ctx, part) : 0;
      for (int j = 0; j < m; j++) {
        if (kept == cap) {
          cap = cap ? cap * 2 : 8;
          parts = xrealloc(parts, cap * sizeof *parts);
        }
        parts[kept++] = GEOSGeom_clone_r(ctx, t == GEOS_POLYGON ? part : GEOSGetGeometryN_r(ctx, part, j));
      }
    }
  }
  GEOSGeom_destroy_r(ctx, g);
  GEOSGeometry *result =
      kept ? GEOSGeom_createCollection_r(ctx, GEOS_MULTIPOLYGON, parts, (unsigned)kept) : NULL;
  free(parts);
  return result;
}

static void add_feature(Src *s, int file, long index, long line, size_t g0, size_t g1,
                        int has_radius, size_t r0, size_t r1) {
  if (g1 <= g0) die("%s:%ld: feature %ld: no geometry", s->path, line, index);
  if (s->buf[g0] == 'n') die("%s:%ld: feature %ld: geometry is null", s->path, line, index);
  /* GEOS wants a C string: end the geometry's text in place for the call. The byte after it
   * is in the buffer (at least the feature's closing brace follows). */
  char saved = s->buf[g1];
  s->buf[g1] = '\0';
  geos_message[0] = '\0';
  GEOSGeometry *g = GEOSGeoJSONReader_readGeometry_r(ctx, geojson, s->buf + g0);
  s->buf[g1] = saved;
  if (!g) die("%s:%ld: feature %ld: geometry: %s", s->path, line, index, geos_message);

  switch (GEOSGeomTypeId_r(ctx, g)) {
  case GEOS_POINT: {
    double radius = point_radius;
    if (has_radius) {
      char text[64];
      size_t n = r1 - r0 < sizeof text - 1 ? r1 - r0 : sizeof text - 1;
      memcpy(text, s->buf + r0, n);
      text[n] = '\0';
      char *end;
      radius = strtod(text, &end);
      if (end == text || *end != '\0' || !isfinite(radius) || radius <= 0)
        die("%s:%ld: feature %ld: property \"radius\": expected a number of metres > 0, got %s",
            s->path, line, index, text);
    }
    double lon, lat;
    if (GEOSisEmpty_r(ctx, g) || !GEOSGeomGetX_r(ctx, g, &lon) || !GEOSGeomGetY_r(ctx, g, &lat) ||
        !(fabs(lat) <= 90 && fabs(lon) <= 180))
      die("%s:%ld: feature %ld: geometry: expected a position [longitude, latitude]", s->path,
          line, index);
    GEOSGeom_destroy_r(ctx, g);
    Fence *f = new_fence(file);
    ecef(lat, lon, &f->cx, &f->cy, &f->cz);
    f->chord2 = chord_squared_limit(lat, radius);
    circle_box(lat, lon, radius, f->box);
    circle_count++;
    return;
  }
  case GEOS_POLYGON:
  case GEOS_MULTIPOLYGON: {
    if (validate_polygons || repair_polygons) {
      char valid = GEOSisValid_r(ctx, g);
      if (valid == 2) die("%s:%ld: feature %ld: GEOSisValid: %s", s->path, line, index, geos_message);
      if (!valid) {
        if (!repair_polygons) {
          char *reason = GEOSisValidReason_r(ctx, g);
          die("%s:%ld: feature %ld: invalid polygon: %s", s->path, line, index,
              reason ? reason : "?");
        }
        GEOSGeometry *fixed = GEOSMakeValid_r(ctx, g);
        if (!fixed) die("%s:%ld: feature %ld: MakeValid: %s", s->path, line, index, geos_message);
        GEOSGeom_destroy_r(ctx, g);
        g = polygonal_parts(fixed);
        if (!g) die("%s:%ld: feature %ld: nothing with an area left after repair", s->path, line, index);
        repaired_count++;
      }
    }
    const GEOSPreparedGeometry *prepared = GEOSPrepare_r(ctx, g);
    if (!prepared) die("%s:%ld: feature %ld: GEOSPrepare: %s", s->path, line, index, geos_message);
    Fence *f = new_fence(file);
    f->geometry = g;
    f->prepared = prepared;
    vertex_count += GEOSGetNumCoordinates_r(ctx, g);
    polygon_count++;
    return;
  }
  case GEOS_LINESTRING:
    line_count++;
    GEOSGeom_destroy_r(ctx, g);
    return;
  case GEOS_MULTILINESTRING:
    line_count += (size_t)GEOSGetNumGeometries_r(ctx, g);
    GEOSGeom_destroy_r(ctx, g);
    return;
  default: {
    char *type = GEOSGeomType_r(ctx, g);
    die("%s:%ld: feature %ld: unsupported geometry type %s: expected Point, Polygon, "
        "MultiPolygon, LineString or MultiLineString",
        s->path, line, index, type ? type : "?");
  }
  }
}

/* One feature: an object whose `geometry` and `properties.radius` are kept as spans. */
static void read_feature(Src *s, int file, long index) {
  skip_ws(s);
  long line = line_at(s, s->pos);
  if (peekc(s) != '{') json_fail(s, "expected a feature object");
  s->pos++;
  size_t g0 = 0, g1 = 0, r0 = 0, r1 = 0;
  int has_radius = 0;
  skip_ws(s);
  if (peekc(s) == '}') {
    s->pos++;
  } else {
    do {
      size_t k0, k1;
      read_key(s, &k0, &k1);
      if (key_is(s, k0, k1, "geometry")) {
        g0 = s->pos;
        skip_value(s);
        g1 = s->pos;
      } else if (key_is(s, k0, k1, "properties") && peekc(s) == '{') {
        s->pos++;
        skip_ws(s);
        if (peekc(s) == '}') {
          s->pos++;
        } else {
          do {
            size_t p0, p1;
            read_key(s, &p0, &p1);
            size_t v0 = s->pos;
            skip_value(s);
            if (key_is(s, p0, p1, "radius")) {
              has_radius = 1;
              r0 = v0;
              r1 = s->pos;
            }
          } while (next_member(s, '}'));
        }
      } else {
        skip_value(s);
      }
    } while (next_member(s, '}'));
  }
  add_feature(s, file, index, line, g0, g1, has_radius, r0, r1);
}

static void load_zones(const char *path, int file) {
  Src s = {0};
  s.path = path;
  errno = 0;
  s.gz = gzopen(path, "rb");
  if (!s.gz) die("%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
  gzbuffer(s.gz, CHUNK);
  expect(&s, '{', "expected a FeatureCollection object");
  int saw_features = 0;
  skip_ws(&s);
  if (peekc(&s) == '}') die("%s: not a FeatureCollection (no \"features\")", path);
  do {
    size_t k0, k1;
    read_key(&s, &k0, &k1);
    if (key_is(&s, k0, k1, "features")) {
      saw_features = 1;
      expect(&s, '[', "\"features\": expected an array");
      skip_ws(&s);
      if (peekc(&s) == ']') {
        s.pos++;
      } else {
        long index = 0;
        do {
          src_discard(&s);
          read_feature(&s, file, index++);
        } while (next_member(&s, ']'));
      }
    } else if (key_is(&s, k0, k1, "type")) {
      size_t v0 = s.pos;
      skip_value(&s);
      if (s.pos - v0 != 19 || memcmp(s.buf + v0, "\"FeatureCollection\"", 19) != 0)
        die("%s:%ld: \"type\": expected \"FeatureCollection\"", path, line_at(&s, v0));
    } else {
      skip_value(&s);
    }
    src_discard(&s);
  } while (next_member(&s, '}'));
  if (!saw_features) die("%s: not a FeatureCollection (no \"features\")", path);
  gzclose(s.gz);
  free(s.buf);
}

/* ---------------------------------------------------------------- tracks */

typedef struct {
  int64_t time; /* microseconds since the epoch, UTC */
  double lat, lon;
  uint32_t device;
  uint32_t seq; /* reading order, for the stable sort */
} Fix;

typedef struct {
  int64_t last_time;
  uint32_t name;            /* offset in names */
  uint32_t count, capacity; /* fences holding the device (sorted fence indices) */
  uint32_t *inside;
  int has_fix;
} Device;

static Fix *fixes;
static size_t fix_count, fix_cap;
static Device *devices;
static size_t device_count, device_cap;
static char *names;
static size_t names_len, names_cap;
static uint32_t *slots; /* open addressing: device index + 1, 0 = empty */
static size_t slot_count;
static uint64_t *slot_hash;
static long rows_skipped;

static uint64_t fnv1a(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
  return h;
}

static void grow_slots(void) {
  size_t n = slot_count ? slot_count * 2 : 1 << 16;
  uint32_t *s = calloc(n, sizeof *s);
  uint64_t *h = calloc(n, sizeof *h);
  if (!s || !h) die("out of memory");
  for (size_t i = 0; i < slot_count; i++) {
    if (!slots[i]) continue;
    size_t j = slot_hash[i] & (n - 1);
    while (s[j]) j = (j + 1) & (n - 1);
    s[j] = slots[i];
    h[j] = slot_hash[i];
  }
  free(slots);
  free(slot_hash);
  slots = s;
  slot_hash = h;
  slot_count = n;
}

/* The device of an id, added on its first fix (the hash table keyed by the id string). */
static uint32_t intern(const char *id, size_t n) {
  if ((device_count + 1) * 2 > slot_count) grow_slots();
  uint64_t h = fnv1a(id, n);
  size_t j = h & (slot_count - 1);
  while (slots[j]) {
    if (slot_hash[j] == h) {
      const char *name = names + devices[slots[j] - 1].name;
      if (strlen(name) == n && memcmp(name, id, n) == 0) return slots[j] - 1;
    }
    j = (j + 1) & (slot_count - 1);
  }
  if (device_count == device_cap) {
    device_cap = device_cap ? device_cap * 2 : 1024;
    devices = xrealloc(devices, device_cap * sizeof *devices);
  }
  if (names_len + n + 1 > names_cap) {
    names_cap = names_cap * 2 > names_len + n + 1 ? names_cap * 2 : names_len + n + 1 + 4096;
    names = xrealloc(names, names_cap);
  }
  memcpy(names + names_len, id, n);
  names[names_len + n] = '\0';
  Device *d = &devices[device_count];
  memset(d, 0, sizeof *d);
  d->name = (uint32_t)names_len;
  names_len += n + 1;
  slots[j] = (uint32_t)(++device_count);
  slot_hash[j] = h;
  return (uint32_t)(device_count - 1);
}

static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static int digits(const char *p, int n, int *value) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return 0;
    v = v * 10 + (p[i] - '0');
  }
  *value = v;
  return 1;
}

/* RFC 3339 / ISO 8601 (`T` or space; `.fff`; `Z`, `±hh:mm` or no zone = UTC), or epoch
 * seconds (above 1e11: milliseconds). */
static int parse_time(const char *p, size_t n, int64_t *out) {
  if (n >= 19 && p[4] == '-') {
    int y, mo, d, h, mi, s;
    if (!digits(p, 4, &y) || p[4] != '-' || !digits(p + 5, 2, &mo) || p[7] != '-' ||
        !digits(p + 8, 2, &d) || (p[10] != 'T' && p[10] != 't' && p[10] != ' ') ||
        !digits(p + 11, 2, &h) || p[13] != ':' || !digits(p + 14, 2, &mi) || p[16] != ':' ||
        !digits(p + 17, 2, &s))
      return 0;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return 0;
    size_t i = 19;
    int64_t micros = 0;
    if (i < n && p[i] == '.') {
      i++;
      int64_t scale = 100000;
      size_t first = i;
      while (i < n && p[i] >= '0' && p[i] <= '9') {
        micros += (p[i] - '0') * scale;
        scale /= 10;
        i++;
      }
      if (i == first) return 0;
    }
    int64_t offset = 0;
    if (i < n && (p[i] == 'Z' || p[i] == 'z')) {
      i++;
    } else if (i < n && (p[i] == '+' || p[i] == '-')) {
      int oh, om;
      if (n - i < 6 || !digits(p + i + 1, 2, &oh) || p[i + 3] != ':' || !digits(p + i + 4, 2, &om))
        return 0;
      offset = (p[i] == '-' ? -1 : 1) * (int64_t)(oh * 3600 + om * 60);
      i += 6;
    }
    if (i != n) return 0;
    int64_t seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset;
    *out = seconds * 1000000 + micros;
    return 1;
  }
  char text[64];
  if (n == 0 || n >= sizeof text) return 0;
  memcpy(text, p, n);
  text[n] = '\0';
  char *end;
  double v = strtod(text, &end);
  if (*end != '\0' || !isfinite(v)) return 0;
  if (fabs(v) > 1e11) v /= 1000;
  *out = (int64_t)llround(v * 1e6);
  return 1;
}

static int parse_double(const char *p, size_t n, double *out) {
  char text[64];
  if (n == 0 || n >= sizeof text) return 0;
  memcpy(text, p, n);
  text[n] = '\0';
  char *end;
  *out = strtod(text, &end);
  return *end == '\0';
}

enum { MAX_FIELDS = 256 };

/* Splits a CSV line in place: fields may be quoted ("" is a quote inside quotes); quoted
 * fields are unquoted in place. Returns the number of fields. */
static int split_csv(char *line, size_t n, char *start[], size_t length[]) {
  int count = 0;
  size_t i = 0;
  for (;;) {
    if (count == MAX_FIELDS) return count;
    if (i < n && line[i] == '"') {
      size_t out = ++i, first = i;
      while (i < n) {
        if (line[i] == '"') {
          if (i + 1 < n && line[i + 1] == '"') {
            line[out++] = '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        line[out++] = line[i++];
      }
      start[count] = line + first;
      length[count++] = out - first;
      while (i < n && line[i] != ',') i++;
    } else {
      size_t first = i;
      while (i < n && line[i] != ',') i++;
      start[count] = line + first;
      length[count++] = i - first;
    }
    if (i >= n) return count;
    i++; /* the comma */
  }
}

static int column(char *start[], size_t length[], int count, const char *const candidates[]) {
  for (int c = 0; candidates[c]; c++) {
    size_t n = strlen(candidates[c]);
    for (int i = 0; i < count; i++) {
      if (length[i] != n) continue;
      size_t k = 0;
      while (k < n && tolower((unsigned char)start[i][k]) == candidates[c][k]) k++;
      if (k == n) return i;
    }
  }
  return -1;
}

static void read_track(const char *path) {
  errno = 0;
  gzFile gz = gzopen(path, "rb");
  if (!gz) die("%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
  gzbuffer(gz, CHUNK);
  static const char *const device_names[] = {"device", "device_id", "id", "mmsi", "object_id",
                                             "name", "vehicle", NULL};
  static const char *const time_names[] = {"time", "timestamp", "datetime", "basedatetime",
                                           "date_time", NULL};
  static const char *const lat_names[] = {"lat", "latitude", NULL};
  static const char *const lon_names[] = {"lon", "lng", "long", "longitude", NULL};
  int cd = -1, ct = -1, cy = -1, cx = -1, need = 0;
  char *buf = xrealloc(NULL, CHUNK + 1);
  size_t cap = CHUNK + 1, len = 0;
  long line = 0;
  int eof = 0;
  char *field[MAX_FIELDS];
  size_t flen[MAX_FIELDS];
  while (!eof) {
    if (cap - len < CHUNK + 1) {
      cap = cap * 2;
      buf = xrealloc(buf, cap);
    }
    int n = gzread(gz, buf + len, CHUNK);
    if (n < 0) {
      int code;
      const char *message = gzerror(gz, &code);
      die("%s: cannot read: %s", path, code == Z_ERRNO ? strerror(errno) : message);
    }
    if (n == 0) {
      eof = 1;
      if (len > 0 && buf[len - 1] != '\n') buf[len++] = '\n'; /* a last line without newline */
    }
    len += (size_t)n;
    size_t start = 0;
    for (;;) {
      char *nl = memchr(buf + start, '\n', len - start);
      if (!nl) break;
      size_t end = (size_t)(nl - buf), next = end + 1;
      if (end > start && buf[end - 1] == '\r') end--;
      line++;
      char *text = buf + start;
      size_t tlen = end - start;
      start = next;
      if (tlen == 0) continue;
      int count = split_csv(text, tlen, field, flen);
      if (cd < 0) { /* the header */
        cd = column(field, flen, count, device_names);
        ct = column(field, flen, count, time_names);
        cy = column(field, flen, count, lat_names);
        cx = column(field, flen, count, lon_names);
        if (cd < 0 || ct < 0 || cy < 0 || cx < 0)
          die("%s:1: header: expected columns device, time, lat and lon (by name)", path);
        need = cd;
        if (ct > need) need = ct;
        if (cy > need) need = cy;
        if (cx > need) need = cx;
        continue;
      }
      Fix f;
      const char *why = NULL;
      if (count <= need) why = "too few columns";
      else if (!parse_time(field[ct], flen[ct], &f.time)) why = "column \"time\": expected a time";
      else if (!parse_double(field[cy], flen[cy], &f.lat)) why = "column \"lat\": expected a number";
      else if (!parse_double(field[cx], flen[cx], &f.lon)) why = "column \"lon\": expected a number";
      else if (flen[cd] == 0) why = "column \"device\": empty";
      if (why) {
        if (rows_skipped++ < 20) fprintf(stderr, "%s: warning: skipped %s:%ld: %s\n", program, path, line, why);
        continue;
      }
      f.device = intern(field[cd], flen[cd]);
      if (fix_count == fix_cap) {
        fix_cap = fix_cap ? fix_cap * 2 : 1 << 16;
        fixes = xrealloc(fixes, fix_cap * sizeof *fixes);
      }
      f.seq = (uint32_t)fix_count;
      fixes[fix_count++] = f;
    }
    memmove(buf, buf + start, len - start);
    len -= start;
  }
  if (cd < 0) die("%s: no header row", path);
  free(buf);
  gzclose(gz);
}

static int by_time(const void *a, const void *b) {
  const Fix *x = a, *y = b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---------------------------------------------------------------- evaluation */

typedef struct {
  Fence **items;
  size_t count, cap;
} Candidates;

static void collect(void *item, void *userdata) {
  Candidates *c = userdata;
  if (c->count == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 64;
    c->items = xrealloc(c->items, c->cap * sizeof *c->items);
  }
  c->items[c->count++] = item;
}

int main(int argc, char **argv) {
  double t_start = now();
  wgs84_e2 = WGS84_F * (2 - WGS84_F);
  min_curvature = WGS84_A * (1 - wgs84_e2);

  const char **zone_files = xrealloc(NULL, (size_t)argc * sizeof *zone_files);
  const char **track_files = xrealloc(NULL, (size_t)argc * sizeof *track_files);
  int zone_file_count = 0, track_file_count = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--zones") == 0) {
      if (++i == argc) usage("--zones needs a file");
      zone_files[zone_file_count++] = argv[i];
    } else if (strcmp(a, "--point-radius") == 0) {
      if (++i == argc) usage("--point-radius needs metres");
      char *end;
      point_radius = strtod(argv[i], &end);
      if (*end || !isfinite(point_radius) || point_radius <= 0)
        usage("--point-radius: expected a number of metres > 0");
    } else if (strcmp(a, "--validate") == 0) {
      validate_polygons = 1;
    } else if (strcmp(a, "--repair") == 0) {
      repair_polygons = 1;
    } else if (strcmp(a, "--earth") == 0) {
      if (++i == argc) usage("--earth needs wgs84 or sphere");
      if (strcmp(argv[i], "sphere") == 0) use_sphere = 1;
      else if (strcmp(argv[i], "wgs84") == 0) use_sphere = 0;
      else usage("--earth: expected wgs84 or sphere");
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage("the plain GEOS loop (see the header of geos_loop.c)");
    } else if (a[0] == '-' && a[1] == '-') {
      fprintf(stderr, "%s: unknown option %s\n", program, a);
      usage("bad usage");
    } else {
      track_files[track_file_count++] = a;
    }
  }
  if (!zone_file_count) usage("give at least one zones file with --zones FILE.geojson");
  if (!track_file_count) usage("give at least one track file");

  ctx = GEOS_init_r();
  GEOSContext_setErrorMessageHandler_r(ctx, geos_error, NULL);
  GEOSContext_setNoticeMessageHandler_r(ctx, geos_notice, NULL);
  geojson = GEOSGeoJSONReader_create_r(ctx);

  /* 1. zones */
  double t0 = now();
  for (int i = 0; i < zone_file_count; i++) load_zones(zone_files[i], i);
  double t_load = now() - t0;

  /* 2. the tree, built by its first query */
  t0 = now();
  GEOSSTRtree *tree = GEOSSTRtree_create_r(ctx, 10);
  for (size_t i = 0; i < fence_count; i++) {
    Fence *f = &fences[i];
    if (f->prepared) {
      GEOSSTRtree_insert_r(ctx, tree, f->geometry, f);
    } else {
      /* GEOS copies the envelope: the rectangle can go at once. */
      GEOSGeometry *r = GEOSGeom_createRectangle_r(ctx, f->box[0], f->box[1], f->box[2], f->box[3]);
      if (!r) die("GEOSGeom_createRectangle: %s", geos_message);
      GEOSSTRtree_insert_r(ctx, tree, r, f);
      GEOSGeom_destroy_r(ctx, r);
    }
  }
  Candidates candidates = {0};
  {
    GEOSGeometry *p = GEOSGeom_createPointFromXY_r(ctx, 0, 0);
    GEOSSTRtree_query_r(ctx, tree, p, collect, &candidates);
    GEOSGeom_destroy_r(ctx, p);
  }
  double t_index = now() - t0;

  /* 3. fixes, stably sorted by time across files (equal times keep file, then row, order) */
  t0 = now();
  for (int i = 0; i < track_file_count; i++) read_track(track_files[i]);
  int sorted = 1;
  for (size_t i = 1; i < fix_count && sorted; i++) sorted = fixes[i - 1].time <= fixes[i].time;
  if (!sorted) qsort(fixes, fix_count, sizeof *fixes, by_time);
  double t_read = now() - t0;

  /* 4. evaluation */
  long long *enters_by_file = calloc((size_t)zone_file_count, sizeof(long long));
  long long *exits_by_file = calloc((size_t)zone_file_count, sizeof(long long));
  uint32_t *inside = NULL;
  size_t inside_cap = 0;
  long long containments = 0, enters = 0, exits = 0, rejected = 0;
  t0 = now();
  for (size_t i = 0; i < fix_count; i++) {
    const Fix *fix = &fixes[i];
    Device *d = &devices[fix->device];
    double lat = fix->lat, lon = fix->lon;
    if (!(fabs(lat) <= 90 && fabs(lon) <= 180) || (lat == 0 && lon == 0) ||
        (d->has_fix && fix->time <= d->last_time)) {
      rejected++;
      continue;
    }
    d->has_fix = 1;
    d->last_time = fix->time;

    GEOSGeometry *point = GEOSGeom_createPointFromXY_r(ctx, lon, lat);
    candidates.count = 0;
    GEOSSTRtree_query_r(ctx, tree, point, collect, &candidates);
    size_t n = 0;
    int have_ecef = 0;
    double x = 0, y = 0, z = 0;
    if (candidates.count > inside_cap) {
      inside_cap = candidates.count * 2;
      inside = xrealloc(inside, inside_cap * sizeof *inside);
    }
    for (size_t c = 0; c < candidates.count; c++) {
      const Fence *f = candidates.items[c];
      int in;
      if (f->prepared) {
        in = GEOSPreparedCovers_r(ctx, f->prepared, point) == 1;
      } else {
        if (!have_ecef) {
          ecef(lat, lon, &x, &y, &z);
          have_ecef = 1;
        }
        double dx = x - f->cx, dy = y - f->cy, dz = z - f->cz;
        in = dx * dx + dy * dy + dz * dz <= f->chord2;
      }
      if (in) {
        /* insertion into a sorted list (a handful of fences at most) */
        uint32_t id = (uint32_t)(f - fences);
        size_t k = n++;
        while (k > 0 && inside[k - 1] > id) {
          inside[k] = inside[k - 1];
          k--;
        }
        inside[k] = id;
      }
    }
    GEOSGeom_destroy_r(ctx, point);
    containments += (long long)n;

    /* enters and exits: the differences of two sorted sets */
    size_t a = 0, b = 0, changed = 0;
    const uint32_t *old = d->inside;
    while (a < d->count || b < n) {
      if (b == n || (a < d->count && old[a] < inside[b])) {
        exits++;
        exits_by_file[fences[old[a]].file]++;
        a++;
        changed = 1;
      } else if (a == d->count || inside[b] < old[a]) {
        enters++;
        enters_by_file[fences[inside[b]].file]++;
        b++;
        changed = 1;
      } else {
        a++;
        b++;
      }
    }
    if (changed) {
      if (n > d->capacity) {
        d->capacity = (uint32_t)n;
        d->inside = xrealloc(d->inside, n * sizeof *d->inside);
      }
      memcpy(d->inside, inside, n * sizeof *inside);
      d->count = (uint32_t)n;
    }
  }
  double t_eval = now() - t0;
  double t_total = now() - t_start;

  struct rusage usage_now;
  getrusage(RUSAGE_SELF, &usage_now);

  printf("{\"fences\":%zu,\"circles\":%zu,\"polygons\":%zu,\"lines\":%zu,\"vertices\":%lld,"
         "\"repaired\":%zu,\"fixes\":%zu,\"fixesRejected\":%lld,\"rowsSkipped\":%ld,"
         "\"devices\":%zu,",
         fence_count, circle_count, polygon_count, line_count, vertex_count, repaired_count,
         fix_count, rejected, rows_skipped, device_count);
  printf("\"loadSeconds\":%.6f,\"indexSeconds\":%.6f,\"readSeconds\":%.6f,"
         "\"evaluationSeconds\":%.6f,\"totalSeconds\":%.6f,\"throughputFixesPerSecond\":%.1f,",
         t_load, t_index, t_read, t_eval, t_total, t_eval > 0 ? (double)fix_count / t_eval : 0.0);
  printf("\"containments\":%lld,\"enters\":%lld,\"exits\":%lld,", containments, enters, exits);
  printf("\"entersByFile\":[");
  for (int i = 0; i < zone_file_count; i++) printf("%s%lld", i ? "," : "", enters_by_file[i]);
  printf("],\"exitsByFile\":[");
  for (int i = 0; i < zone_file_count; i++) printf("%s%lld", i ? "," : "", exits_by_file[i]);
  printf("],\"peakMemoryBytes\":%lld,\"earth\":\"%s\",\"geosVersion\":\"%s\"}\n",
         (long long)usage_now.ru_maxrss * 1024, use_sphere ? "sphere" : "wgs84", GEOSversion());

  /* A benchmark exits here; the operating system takes the fences, tree and tables back
   * faster than freeing a million GEOS geometries one by one would. */
  fflush(stdout);
  return 0;
}

// A measuring aid, not part of FenceKit: an LD_PRELOAD shim for a `fenced` process that turns
// the statement `PRAGMA synchronous = NORMAL` into `PRAGMA synchronous = FULL`.
//
// Why: GRDB's DatabasePool runs `PRAGMA synchronous = NORMAL` on its writer connection when it
// sets up WAL mode, after the connection's `prepareDatabase` hook has run, so
// SQLiteStorage's `PRAGMA synchronous = FULL` (the default `--durability full`) never reaches
// the connection that commits (see Docs/Daemon-Performance.md). With this shim the writer
// really syncs the WAL at every commit, which is what `full` promises; daemon-bench uses it to
// measure what that costs until SQLiteStorage sets the pragma after opening the pool.
//
// Build: gcc -O2 -shared -fPIC -o force-full-sync.so force-full-sync.c -ldl
// Use:   LD_PRELOAD=/path/force-full-sync.so fenced serve …   (DaemonLoad --fenced-environment)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <sqlite3.h>

static const char *rewrite(const char *sql, int *length) {
  static const char normal[] = "PRAGMA synchronous = NORMAL";
  static const char full[] = "PRAGMA synchronous = FULL";
  if (sql != NULL && strncmp(sql, normal, sizeof normal - 1) == 0 && sql[sizeof normal - 1] == '\0') {
    *length = -1;
    return full;
  }
  return sql;
}

int sqlite3_prepare_v3(sqlite3 *db, const char *sql, int length, unsigned int flags,
                       sqlite3_stmt **statement, const char **tail) {
  static int (*real)(sqlite3 *, const char *, int, unsigned int, sqlite3_stmt **, const char **);
  if (real == NULL) real = dlsym(RTLD_NEXT, "sqlite3_prepare_v3");
  sql = rewrite(sql, &length);
  return real(db, sql, length, flags, statement, tail);
}

int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int length, sqlite3_stmt **statement,
                       const char **tail) {
  static int (*real)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
  if (real == NULL) real = dlsym(RTLD_NEXT, "sqlite3_prepare_v2");
  sql = rewrite(sql, &length);
  return real(db, sql, length, statement, tail);
}

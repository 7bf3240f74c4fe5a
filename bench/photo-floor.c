/* The floor of reading photo and video metadata: the I/O any metadata reader must do, and
 * nothing else. Walks DIR (nftw) and, per file: open, pread 64 KiB from the start, and for a
 * movie (`ftyp` at byte 4) a pread of each top-level box header up to `moov` and one of `moov`
 * itself (at most 64 KiB), then close. Used by bench/photos.sh and bench/photos-videos.sh.
 *
 * With STATEDIR it is also the floor of a whole `run`: each file becomes one item body of the
 * agent's size (DIR's files' items are about 330 bytes of JSON), queued durably in an outbox and
 * then delivered to a node store. Both are SQLite files with the agent's schemas and settings
 * (Sources/IngestCore/Store/StateStore+Schema.swift, Node/LocalNode.swift): WAL, synchronous=FULL,
 * one commit per 2000 files queued (the photos adapter's chunk), then per batch of 1000 one
 * upsert transaction at the node and one range delete from the outbox. No keys are hashed and
 * nothing is parsed: it is the writing any durable queue-then-deliver must do, on one thread.
 * usage: photo-floor DIR [STATEDIR]   (prints files and bytes read, and items delivered) */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include <stdlib.h>
static unsigned char buf[65536];
static long files, bytes;
static uint64_t be(const unsigned char *p, int n) { uint64_t v = 0; for (int i = 0; i < n; i++) v = v << 8 | p[i]; return v; }
static sqlite3 *queue;
static sqlite3_stmt *insert;
static void must(sqlite3 *db, const char *sql) {
    char *error = 0;
    if (sqlite3_exec(db, sql, 0, 0, &error) != SQLITE_OK) { fprintf(stderr, "%s: %s\n", sql, error); exit(1); }
}
/* One item per file: a body the size of the agent's, keyed by the path (unique in DIR). */
static void enqueue(const char *path, long long size) {
    static char key[64], body[400];
    static unsigned long n;
    unsigned long long h = 1469598103934665603ULL;
    for (const char *c = path; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    snprintf(key, sizeof key, "photo:%016llx%016llx", h, h * 31);
    int len = snprintf(body, sizeof body, "{\"camera\":{\"make\":\"SONY\",\"model\":\"ILCE-7M3\"},\"file\":{\"name\":\"%.40s\",\"size\":%lld},"
                       "\"key\":\"%s\",\"lat\":-58.956244250000005,\"lon\":-7.130515083333333,\"taken_at\":\"2016-11-22T18:53:35.755+01:00\","
                       "\"version\":\"%016llx\"}", strrchr(path, '/') + 1, size, key, h);
    sqlite3_bind_text(insert, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 2, key + 6, 16, SQLITE_STATIC);
    sqlite3_bind_blob(insert, 3, body, len, SQLITE_STATIC);
    sqlite3_step(insert); sqlite3_reset(insert);
    if (++n % 2000 == 0) must(queue, "COMMIT; BEGIN");
}
static int one(const char *path, const struct stat *st, int type, struct FTW *f) {
    (void)f;
    if (type != FTW_F) return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = pread(fd, buf, sizeof buf, 0);
    if (n > 0) bytes += n;
    if (n >= 8 && memcmp(buf + 4, "ftyp", 4) == 0) {          /* a movie: box headers up to moov */
        off_t at = 0;
        unsigned char h[16];
        while (at + 8 <= st->st_size && pread(fd, h, 16, at) >= 8) {
            uint64_t size = be(h, 4);
            if (size == 1) size = be(h + 8, 8);
            if (size < 8) break;
            if (memcmp(h + 4, "moov", 4) == 0) { bytes += pread(fd, buf, size < sizeof buf ? size : sizeof buf, at); break; }
            at += size;
        }
    }
    close(fd);
    files++;
    if (queue) enqueue(path, st->st_size);
    return 0;
}
static sqlite3 *open_db(const char *dir, const char *name, const char *schema) {
    char path[4096];
    sqlite3 *db;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (sqlite3_open(path, &db) != SQLITE_OK) { fprintf(stderr, "%s: %s\n", path, sqlite3_errmsg(db)); exit(1); }
    must(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA temp_store=MEMORY");
    must(db, schema);
    return db;
}
/* Every batch of 1000 in id order: upserted at the node in one transaction, then deleted from
 * the outbox by id range in another. */
static long deliver(sqlite3 *outbox, sqlite3 *node) {
    sqlite3_stmt *next, *drop, *put;
    sqlite3_prepare_v2(outbox, "SELECT id, key, version, body FROM outbox WHERE lane = 1 AND id > ?1 ORDER BY id LIMIT 1000", -1, &next, 0);
    sqlite3_prepare_v2(outbox, "DELETE FROM outbox WHERE lane = 1 AND id BETWEEN ?1 AND ?2", -1, &drop, 0);
    sqlite3_prepare_v2(node, "INSERT INTO items(endpoint, source, key, version, deleted, item, received_at) VALUES ('photos', 'linux-photos', ?1, ?2, 0, ?3, 0) "
                             "ON CONFLICT(endpoint, source, key) DO UPDATE SET version = excluded.version, item = excluded.item "
                             "WHERE items.version IS NOT excluded.version", -1, &put, 0);
    long delivered = 0;
    sqlite3_int64 after = 0;
    for (;;) {
        sqlite3_int64 first = -1, last = -1;
        must(node, "BEGIN");
        sqlite3_bind_int64(next, 1, after);
        while (sqlite3_step(next) == SQLITE_ROW) {
            last = sqlite3_column_int64(next, 0);
            if (first < 0) first = last;
            sqlite3_bind_text(put, 1, (const char *)sqlite3_column_text(next, 1), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(put, 2, (const char *)sqlite3_column_text(next, 2), -1, SQLITE_TRANSIENT);
            sqlite3_bind_blob(put, 3, sqlite3_column_blob(next, 3), sqlite3_column_bytes(next, 3), SQLITE_TRANSIENT);
            sqlite3_step(put); sqlite3_reset(put);
            delivered++;
        }
        sqlite3_reset(next);
        must(node, "COMMIT");
        if (first < 0) break;
        must(outbox, "BEGIN");
        sqlite3_bind_int64(drop, 1, first); sqlite3_bind_int64(drop, 2, last);
        sqlite3_step(drop); sqlite3_reset(drop);
        must(outbox, "COMMIT");
        after = last;
    }
    sqlite3_finalize(next); sqlite3_finalize(drop); sqlite3_finalize(put);
    return delivered;
}
int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) { fprintf(stderr, "usage: photo-floor DIR [STATEDIR]\n"); return 2; }
    sqlite3 *node = 0;
    if (argc == 3) {
        if (mkdir(argv[2], 0755) != 0 && errno != EEXIST) { perror(argv[2]); return 1; }
        queue = open_db(argv[2], "state.db",
            "CREATE TABLE IF NOT EXISTS outbox(id INTEGER PRIMARY KEY, lane INTEGER NOT NULL, adapter TEXT NOT NULL, key TEXT NOT NULL, "
            "version TEXT, deleted INTEGER NOT NULL DEFAULT 0, body BLOB NOT NULL, enqueued_at REAL NOT NULL); "
            "CREATE INDEX IF NOT EXISTS outbox_lane ON outbox(lane, id)");
        node = open_db(argv[2], "local-node.db",
            "CREATE TABLE IF NOT EXISTS items(endpoint TEXT NOT NULL, source TEXT NOT NULL, key TEXT NOT NULL, version TEXT, "
            "deleted INTEGER NOT NULL, item BLOB NOT NULL, received_at REAL NOT NULL, UNIQUE(endpoint, source, key))");
        sqlite3_prepare_v2(queue, "INSERT INTO outbox(lane, adapter, key, version, body, enqueued_at) VALUES (1, 'bench', ?1, ?2, ?3, 0)", -1, &insert, 0);
        must(queue, "BEGIN");
    }
    if (nftw(argv[1], one, 64, 0) != 0) { perror("nftw"); return 1; }
    printf("%ld files, %ld bytes read", files, bytes);
    if (queue) {
        must(queue, "COMMIT");
        sqlite3_finalize(insert);
        printf(", %ld items delivered", deliver(queue, node));
        sqlite3_close(queue); sqlite3_close(node);
    }
    printf("\n");
    return 0;
}

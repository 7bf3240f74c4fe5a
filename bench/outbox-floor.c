/* The state store's part of a drain, and nothing else: for a copy of a state.db holding N queued
 * items in one lane, read each batch of 1000 (id, key, version, deleted, body) in id order and
 * delete it by id range, one transaction per batch, with the store's own settings (WAL,
 * secure_delete as Debian builds SQLite, synchronous=NORMAL for the delete as the agent's
 * `delivered` does). Prints the items read. Used by bench/run.sh beside the agent's drain and
 * curl's pre-built POSTs: the two floors of a drain's CPU.
 * usage: outbox-floor STATE.db */
#include <sqlite3.h>
#include <stdio.h>

int main(int argc, char **argv) {
    sqlite3 *db;
    if (argc != 2 || sqlite3_open(argv[1], &db) != SQLITE_OK) { fprintf(stderr, "usage: outbox-floor STATE.db\n"); return 2; }
    sqlite3_exec(db, "PRAGMA synchronous=NORMAL", 0, 0, 0);
    sqlite3_stmt *next, *drop;
    sqlite3_prepare_v2(db, "SELECT id, key, version, deleted, body FROM outbox WHERE lane = ?1 AND id > ?2 ORDER BY id LIMIT 1000", -1, &next, 0);
    sqlite3_prepare_v2(db, "DELETE FROM outbox WHERE lane = ?1 AND id BETWEEN ?2 AND ?3", -1, &drop, 0);
    long long lane = 1, after = 0, total = 0, bytes = 0;
    for (;;) {
        long long first = -1, last = -1;
        sqlite3_bind_int64(next, 1, lane); sqlite3_bind_int64(next, 2, after);
        while (sqlite3_step(next) == SQLITE_ROW) {
            last = sqlite3_column_int64(next, 0);
            if (first < 0) first = last;
            bytes += sqlite3_column_bytes(next, 1) + sqlite3_column_bytes(next, 4);
            (void)sqlite3_column_blob(next, 4);
            total++;
        }
        sqlite3_reset(next);
        if (first < 0) break;
        sqlite3_exec(db, "BEGIN", 0, 0, 0);
        sqlite3_bind_int64(drop, 1, lane); sqlite3_bind_int64(drop, 2, first); sqlite3_bind_int64(drop, 3, last);
        sqlite3_step(drop); sqlite3_reset(drop);
        sqlite3_exec(db, "COMMIT", 0, 0, 0);
        after = last;
    }
    sqlite3_finalize(next); sqlite3_finalize(drop); sqlite3_close(db);
    printf("%lld items, %lld bytes\n", total, bytes);
    return 0;
}

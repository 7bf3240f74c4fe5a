/* The floor of reading photo and video metadata: the I/O any metadata reader must do, and
 * nothing else. Walks DIR (nftw) and, per file: open, pread 64 KiB from the start, and for a
 * movie (`ftyp` at byte 4) a pread of each top-level box header up to `moov` and one of `moov`
 * itself (at most 64 KiB), then close. Used by bench/photos.sh and bench/photos-videos.sh.
 * usage: photo-floor DIR   (prints files and bytes read) */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
static unsigned char buf[65536];
static long files, bytes;
static uint64_t be(const unsigned char *p, int n) { uint64_t v = 0; for (int i = 0; i < n; i++) v = v << 8 | p[i]; return v; }
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
    return 0;
}
int main(int argc, char **argv) {
    if (argc != 2 || nftw(argv[1], one, 64, 0) != 0) { perror("nftw"); return 1; }
    printf("%ld files, %ld bytes read\n", files, bytes);
    return 0;
}

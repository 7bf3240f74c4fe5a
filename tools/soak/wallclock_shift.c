// An LD_PRELOAD library that shifts the wall clock (CLOCK_REALTIME and what reads it) of one
// process by a number of seconds read from the file $SOAK_CLOCK_FILE, re-read at most once a
// second: the soak steps `watch`'s wall clock an hour back and forward with it, as an NTP step or
// a user setting the time would. CLOCK_MONOTONIC, CLOCK_BOOTTIME and timers are left alone, as a
// real step leaves them.
//
// Why not libfaketime (Debian 12: 0.9.10): its timerfd_settime and clock_nanosleep wrappers move
// every absolute deadline by the wall-clock offset whatever the timer's clock ("only
// CLOCK_REALTIME is handled", src/libfaketime.c, still so upstream), so with the clock an hour
// back every CLOCK_MONOTONIC timer of libdispatch fires an hour late and `watch` stalls. Nor does
// its constructor leave `environ` alone (setenv of FAKETIME_SHARED), which loses a Swift binary's
// argv (swiftlang/swift#76080). This file calls no setenv and has no constructor.
//
// Build: cc -shared -fPIC -O2 -o wallclock_shift.so wallclock_shift.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static _Atomic long long offset_s;
static _Atomic long long read_at = -1;   // CLOCK_MONOTONIC second of the last read

static int (*real_clock_gettime)(clockid_t, struct timespec *);

static int call_real(clockid_t clock, struct timespec *ts) {
    if (!real_clock_gettime) real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
    return real_clock_gettime(clock, ts);
}

// The offset in seconds, from the file when a second has passed since the last read.
static long long current_offset(void) {
    struct timespec mono;
    call_real(CLOCK_MONOTONIC_COARSE, &mono);
    if (atomic_exchange(&read_at, mono.tv_sec) == mono.tv_sec) return atomic_load(&offset_s);
    const char *path = getenv("SOAK_CLOCK_FILE");
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        char text[32] = {0};
        ssize_t n = read(fd, text, sizeof text - 1);
        close(fd);
        if (n > 0) atomic_store(&offset_s, strtoll(text, NULL, 10));
    }
    return atomic_load(&offset_s);
}

static int is_wall(clockid_t clock) {
    return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE || clock == CLOCK_TAI;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    int r = call_real(clock, ts);
    if (r == 0 && is_wall(clock)) ts->tv_sec += current_offset();
    return r;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    (void)tz;
    struct timespec ts;
    int r = clock_gettime(CLOCK_REALTIME, &ts);
    if (r == 0) { tv->tv_sec = ts.tv_sec; tv->tv_usec = ts.tv_nsec / 1000; }
    return r;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}

int timespec_get(struct timespec *ts, int base) {
    if (base != TIME_UTC || clock_gettime(CLOCK_REALTIME, ts) != 0) return 0;
    return base;
}

/* What loading Debian's libcurl costs a process in memory, whatever uses it: dlopen the library
 * (as the agent does), curl_global_init, then N small JSON POSTs to URL over one handle. Prints
 * the process's peak RSS (VmHWM, kB) before loading and at the end, as "BEFORE AFTER".
 * usage: curl-floor LIBRARY URL N      e.g. curl-floor libcurl.so.4 http://127.0.0.1:8080/v1/ingest/capture 5 */
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long peak_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (f && fgets(line, sizeof line, f)) if (!strncmp(line, "VmHWM:", 6)) kb = atol(line + 6);
    if (f) fclose(f);
    return kb;
}

static size_t discard(char *data, size_t size, size_t count, void *user) { (void)data; (void)user; return size * count; }

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s LIBRARY URL N\n", argv[0]); return 2; }
    long before = peak_kb();
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    CURLcode (*global_init)(long) = (CURLcode (*)(long))dlsym(lib, "curl_global_init");
    CURL *(*easy_init)(void) = (CURL *(*)(void))dlsym(lib, "curl_easy_init");
    CURLcode (*setopt)(CURL *, CURLoption, ...) = (CURLcode (*)(CURL *, CURLoption, ...))dlsym(lib, "curl_easy_setopt");
    CURLcode (*perform)(CURL *) = (CURLcode (*)(CURL *))dlsym(lib, "curl_easy_perform");
    struct curl_slist *(*append)(struct curl_slist *, const char *) = (struct curl_slist *(*)(struct curl_slist *, const char *))dlsym(lib, "curl_slist_append");
    if (!global_init || !easy_init || !setopt || !perform || !append) { fprintf(stderr, "not libcurl\n"); return 1; }
    global_init(CURL_GLOBAL_DEFAULT);
    CURL *curl = easy_init();
    struct curl_slist *headers = append(append(NULL, "Content-Type: application/json"), "Authorization: Bearer bench-token");
    const char *body = "{\"actor\":\"device:b\",\"source\":\"linux-capture\",\"device\":{\"id\":\"b\",\"name\":\"b\",\"platform\":\"linux\",\"agent\":\"c\"},"
                       "\"items\":[{\"key\":\"k\",\"text\":\"a quick note\",\"captured_at\":\"2026-11-30T12:00:00Z\",\"via\":\"args\"}]}";
    setopt(curl, CURLOPT_URL, argv[2]);
    setopt(curl, CURLOPT_HTTPHEADER, headers);
    setopt(curl, CURLOPT_POSTFIELDS, body);
    setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    for (int i = 0; i < atoi(argv[3]); i++)
        if (perform(curl) != CURLE_OK) { fprintf(stderr, "POST failed\n"); return 1; }
    printf("%ld %ld\n", before, peak_kb());
    return 0;
}

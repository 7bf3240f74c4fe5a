/* The calendar benchmark's C baseline: libical's own parse plus icalcomponent_foreach_recurrence
 * over every VEVENT (overrides included, as libical does not merge them), counting occurrences
 * that start by the window's end.
 * usage: ical-expand FILE.ics WINDOW_END_UNIX_SECONDS */
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>

static void count(icalcomponent *comp, struct icaltime_span *span, void *data) {
    (void)comp; (void)span;
    ++*(long *)data;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s FILE.ics WINDOW_END\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = malloc(size + 1);
    if (fread(text, 1, size, f) != (size_t)size) { perror("fread"); return 1; }
    text[size] = 0;
    fclose(f);

    icalcomponent *root = icalparser_parse_string(text);
    if (!root) { fprintf(stderr, "not iCalendar\n"); return 1; }
    icaltimezone *utc = icaltimezone_get_utc_timezone();
    struct icaltimetype from = icaltime_from_timet_with_zone(0, 0, utc);
    struct icaltimetype to = icaltime_from_timet_with_zone((time_t)atoll(argv[2]), 0, utc);
    long occurrences = 0, events = 0;
    for (icalcomponent *c = icalcomponent_get_first_component(root, ICAL_VEVENT_COMPONENT); c;
         c = icalcomponent_get_next_component(root, ICAL_VEVENT_COMPONENT)) {
        icalcomponent_foreach_recurrence(c, from, to, count, &occurrences);
        events++;
    }
    printf("%ld events, %ld occurrences\n", events, occurrences);
    icalcomponent_free(root);
    free(text);
    return 0;
}

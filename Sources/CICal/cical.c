#include "cical.h"

cical_api_t cical_api_table;

/// Looks `name` up in `handle` into the table's `field`; 1 when it was found. An int, so that `&`
/// looks every symbol up (`&&` would stop at the first one missing).
#define CICAL_SYM(handle, field, name) (int)((*(void **)&cical_api_table.field = dlsym(handle, name)) != NULL)

static void cical_load_once(void) {
    cical_api_t *a = &cical_api_table;
    void *h = dlopen("libical.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    int ok = CICAL_SYM(h, errors_are_fatal, "icalerror_set_errors_are_fatal")
        & CICAL_SYM(h, parse_string, "icalparser_parse_string") & CICAL_SYM(h, component_free, "icalcomponent_free")
        & CICAL_SYM(h, remove_component, "icalcomponent_remove_component") & CICAL_SYM(h, component_isa, "icalcomponent_isa")
        & CICAL_SYM(h, first_component, "icalcomponent_get_first_component")
        & CICAL_SYM(h, next_component, "icalcomponent_get_next_component")
        & CICAL_SYM(h, first_property, "icalcomponent_get_first_property")
        & CICAL_SYM(h, next_property, "icalcomponent_get_next_property") & CICAL_SYM(h, get_uid, "icalcomponent_get_uid")
        & CICAL_SYM(h, get_summary, "icalcomponent_get_summary") & CICAL_SYM(h, get_location, "icalcomponent_get_location")
        & CICAL_SYM(h, get_dtstart, "icalcomponent_get_dtstart") & CICAL_SYM(h, get_dtend, "icalcomponent_get_dtend")
        & CICAL_SYM(h, property_isa, "icalproperty_isa") & CICAL_SYM(h, property_value, "icalproperty_get_value_as_string")
        & CICAL_SYM(h, property_x_name, "icalproperty_get_x_name")
        & CICAL_SYM(h, first_parameter, "icalproperty_get_first_parameter")
        & CICAL_SYM(h, parameter_xvalue, "icalparameter_get_xvalue") & CICAL_SYM(h, parameter_isa, "icalparameter_isa")
        & CICAL_SYM(h, parameter_role, "icalparameter_get_role")
        & CICAL_SYM(h, parameter_partstat, "icalparameter_get_partstat")
        & CICAL_SYM(h, parameter_enum_name, "icalparameter_enum_to_string")
        & CICAL_SYM(h, property_rrule, "icalproperty_get_rrule") & CICAL_SYM(h, property_rdate, "icalproperty_get_rdate")
        & CICAL_SYM(h, property_datetime, "icalproperty_get_datetime_with_component")
        & CICAL_SYM(h, property_priority, "icalproperty_get_priority") & CICAL_SYM(h, recur_new, "icalrecur_iterator_new")
        & CICAL_SYM(h, recur_next, "icalrecur_iterator_next") & CICAL_SYM(h, recur_free, "icalrecur_iterator_free")
        & CICAL_SYM(h, timezone_of, "icalcomponent_get_timezone")
        & CICAL_SYM(h, builtin_timezone, "icaltimezone_get_builtin_timezone")
        & CICAL_SYM(h, zone_component, "icaltimezone_get_component")
        & CICAL_SYM(h, utc_timezone, "icaltimezone_get_utc_timezone") & CICAL_SYM(h, as_timet, "icaltime_as_timet_with_zone")
        & CICAL_SYM(h, utc_offset_of_utc, "icaltimezone_get_utc_offset_of_utc_time");
    if (!ok) return;
    a->errors_are_fatal(0);       // a bad value must become an X-LIC-ERROR property, never an abort()
    // The first use of any zone (even UTC, which libical's time conversions ask for) publishes the
    // built-in list and then fills it from zone.tab: a thread looking a TZID up meanwhile compares
    // entries not yet written. Filling it here, once, before any thread can call in, closes that.
    a->utc_timezone();
    a->ok = 1;
}

#undef CICAL_SYM

int cical_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cical_load_once);
    return cical_api_table.ok;
}

static pthread_mutex_t cical_zone_lock = PTHREAD_MUTEX_INITIALIZER;

/// `zone` loaded (for a built-in zone, its first `get_component` loads it); called with the lock held.
static icaltimezone *cical_loaded(icaltimezone *zone) {
    if (zone) cical_api_storage()->zone_component(zone);
    return zone;
}

static struct icaltimetype cical_time_loaded(struct icaltimetype t) {
    cical_loaded((icaltimezone *)t.zone);
    return t;
}

#define CICAL_ZONE_LOCKED(type, call) \
    pthread_mutex_lock(&cical_zone_lock); type result = call; pthread_mutex_unlock(&cical_zone_lock); return result

struct icaltimetype cical_dtstart(icalcomponent *c) { CICAL_ZONE_LOCKED(struct icaltimetype, cical_time_loaded(cical_api_storage()->get_dtstart(c))); }
struct icaltimetype cical_dtend(icalcomponent *c) { CICAL_ZONE_LOCKED(struct icaltimetype, cical_time_loaded(cical_api_storage()->get_dtend(c))); }
struct icaltimetype cical_property_datetime(icalproperty *p, icalcomponent *c) {
    CICAL_ZONE_LOCKED(struct icaltimetype, cical_time_loaded(cical_api_storage()->property_datetime(p, c)));
}
icaltimezone *cical_builtin_timezone(const char *location) {
    CICAL_ZONE_LOCKED(icaltimezone *, cical_loaded(cical_api_storage()->builtin_timezone(location)));
}

#undef CICAL_ZONE_LOCKED

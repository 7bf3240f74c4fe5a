#ifndef CICAL_H
#define CICAL_H
#include <libical/ical.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// libical is loaded on first use (dlopen), not at process start: it pulls in ICU (libicuuc,
// libicui18n, libicudata, libstdc++), milliseconds of loading on every start of every command,
// and only a calendar scan needs it. Every call Swift makes goes through this table; none of
// them is variadic. Until `cical_load()` has returned 1 the wrappers must not be called.

typedef struct {
    int ok;
    void (*errors_are_fatal)(int);
    icalcomponent *(*parse_string)(const char *);
    void (*component_free)(icalcomponent *);
    void (*remove_component)(icalcomponent *, icalcomponent *);
    icalcomponent_kind (*component_isa)(const icalcomponent *);
    icalcomponent *(*first_component)(icalcomponent *, icalcomponent_kind);
    icalcomponent *(*next_component)(icalcomponent *, icalcomponent_kind);
    icalproperty *(*first_property)(icalcomponent *, icalproperty_kind);
    icalproperty *(*next_property)(icalcomponent *, icalproperty_kind);
    const char *(*get_uid)(icalcomponent *);
    const char *(*get_summary)(icalcomponent *);
    const char *(*get_location)(icalcomponent *);
    struct icaltimetype (*get_dtstart)(icalcomponent *);
    struct icaltimetype (*get_dtend)(icalcomponent *);
    icalproperty_kind (*property_isa)(icalproperty *);
    const char *(*property_value)(const icalproperty *);
    const char *(*property_x_name)(icalproperty *);
    icalparameter *(*first_parameter)(icalproperty *, icalparameter_kind);
    const char *(*parameter_xvalue)(icalparameter *);
    icalparameter_kind (*parameter_isa)(icalparameter *);
    icalparameter_role (*parameter_role)(const icalparameter *);
    icalparameter_partstat (*parameter_partstat)(const icalparameter *);
    const char *(*parameter_enum_name)(int);
    struct icalrecurrencetype (*property_rrule)(const icalproperty *);
    struct icaldatetimeperiodtype (*property_rdate)(const icalproperty *);
    struct icaltimetype (*property_datetime)(icalproperty *, icalcomponent *);
    int (*property_priority)(const icalproperty *);
    icalrecur_iterator *(*recur_new)(struct icalrecurrencetype, struct icaltimetype);
    struct icaltimetype (*recur_next)(icalrecur_iterator *);
    void (*recur_free)(icalrecur_iterator *);
    icaltimezone *(*timezone_of)(icalcomponent *, const char *);
    icaltimezone *(*builtin_timezone)(const char *);
    icalcomponent *(*zone_component)(icaltimezone *);
    icaltimezone *(*utc_timezone)(void);
    time_t (*as_timet)(const struct icaltimetype, const icaltimezone *);
    int (*utc_offset_of_utc)(icaltimezone *, struct icaltimetype *, int *);
} cical_api_t;

/// The one table of `cical`, defined in cical.c: a `static` inside this header would give
/// every object file its own, never-filled copy (release builds split a module into several).
extern cical_api_t cical_api_table;
static inline cical_api_t *cical_api_storage(void) { return &cical_api_table; }



/// 1 once libical is loaded and every function was found, else 0.
int cical_load(void);

// libical 3.0 shares its built-in zones between threads without a lock: `cical_load` fills the
// list from zone.tab before any thread can call in, but a zone's first use loads it, freeing its
// location string while another thread may be comparing it, and a TZID missing from zone.tab is
// appended to the list on lookup. Files parse on several threads, so every call that can look up
// a TZID (the date getters resolve the property's TZID parameter) holds one lock and returns its
// zone loaded: past that, libical only reads the zone (its UTC-offset cache has its own mutex).
struct icaltimetype cical_dtstart(icalcomponent *c);
struct icaltimetype cical_dtend(icalcomponent *c);
struct icaltimetype cical_property_datetime(icalproperty *p, icalcomponent *c);
icaltimezone *cical_builtin_timezone(const char *location);

static inline icalcomponent *cical_parse_string(const char *text) { return cical_api_storage()->parse_string(text); }
static inline void cical_component_free(icalcomponent *c) { cical_api_storage()->component_free(c); }
static inline void cical_remove_component(icalcomponent *parent, icalcomponent *child) { cical_api_storage()->remove_component(parent, child); }
static inline icalcomponent_kind cical_component_kind(const icalcomponent *c) { return cical_api_storage()->component_isa(c); }
static inline icalcomponent *cical_first_component(icalcomponent *c, icalcomponent_kind k) { return cical_api_storage()->first_component(c, k); }
static inline icalcomponent *cical_next_component(icalcomponent *c, icalcomponent_kind k) { return cical_api_storage()->next_component(c, k); }
static inline icalproperty *cical_first_property(icalcomponent *c, icalproperty_kind k) { return cical_api_storage()->first_property(c, k); }
static inline icalproperty *cical_next_property(icalcomponent *c, icalproperty_kind k) { return cical_api_storage()->next_property(c, k); }
static inline const char *cical_uid(icalcomponent *c) { return cical_api_storage()->get_uid(c); }
static inline const char *cical_summary(icalcomponent *c) { return cical_api_storage()->get_summary(c); }
static inline const char *cical_location(icalcomponent *c) { return cical_api_storage()->get_location(c); }
static inline icalproperty_kind cical_property_kind(icalproperty *p) { return cical_api_storage()->property_isa(p); }
static inline const char *cical_property_value(icalproperty *p) { return cical_api_storage()->property_value(p); }
static inline const char *cical_property_x_name(icalproperty *p) { return cical_api_storage()->property_x_name(p); }
/// `p`'s first parameter of `kind`, or NULL.
static inline icalparameter *cical_first_parameter(icalproperty *p, icalparameter_kind kind) { return cical_api_storage()->first_parameter(p, kind); }
/// A parameter's value as text, without a copy: a text parameter's own (TZID, CN), an enumerated
/// one's X- or IANA value, or ROLE's and PARTSTAT's standard value by name from libical's own
/// table; NULL for other enumerated parameters' standard values. (libical's by-name getter
/// renders `NAME=value` into a new 1 KiB buffer and copies it out: a large request, which
/// also sweeps malloc's fast bins, for each attendee.)
static inline const char *cical_parameter_text(icalparameter *param) {
    cical_api_t *a = cical_api_storage();
    const char *text = a->parameter_xvalue(param);
    if (text) return text;
    switch (a->parameter_isa(param)) {
    case ICAL_ROLE_PARAMETER: return a->parameter_enum_name(a->parameter_role(param));
    case ICAL_PARTSTAT_PARAMETER: return a->parameter_enum_name(a->parameter_partstat(param));
    default: return NULL;
    }
}
static inline struct icaldatetimeperiodtype cical_property_rdate(icalproperty *p) { return cical_api_storage()->property_rdate(p); }
static inline int cical_property_priority(icalproperty *p) { return cical_api_storage()->property_priority(p); }

/// An iterator over an RRULE property's instances from `dtstart`, or NULL when libical finds
/// the rule unusable (no FREQ, or a rule no date can satisfy). The rule struct stays in C.
static inline icalrecur_iterator *cical_rrule_iterator(icalproperty *rrule, struct icaltimetype dtstart) {
    cical_api_t *a = cical_api_storage();
    struct icalrecurrencetype rule = a->property_rrule(rrule);
    if (rule.freq == ICAL_NO_RECURRENCE) return NULL;
    return a->recur_new(rule, dtstart);
}
static inline struct icaltimetype cical_recur_next(icalrecur_iterator *i) { return cical_api_storage()->recur_next(i); }
static inline void cical_recur_free(icalrecur_iterator *i) { cical_api_storage()->recur_free(i); }

static inline icaltimezone *cical_timezone_of(icalcomponent *vcalendar, const char *tzid) { return cical_api_storage()->timezone_of(vcalendar, tzid); }
static inline icaltimezone *cical_utc_timezone(void) { return cical_api_storage()->utc_timezone(); }
static inline time_t cical_as_timet(struct icaltimetype t, const icaltimezone *zone) { return cical_api_storage()->as_timet(t, zone); }
/// `zone`'s UTC offset in seconds at the UTC time `utc` (its fields only; its zone is not read).
static inline int cical_utc_offset_at(icaltimezone *zone, struct icaltimetype utc) { return cical_api_storage()->utc_offset_of_utc(zone, &utc, NULL); }

#endif

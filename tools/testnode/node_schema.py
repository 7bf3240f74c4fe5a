"""The node's checks of what a device sends (docs/node-api.md): envelope, items, fields."""

MAX_BODY = 1024 * 1024          # node-api.md: the whole body at most 1 MiB, else 413
MAX_ITEMS = 1000
MAX_KEY_CHARS = 512
DRAIN_LIMIT = 64 * MAX_BODY     # bodies we refuse are read and dropped up to this, to keep the connection
REQUEST_LOG_SIZE = 10000
ENDPOINTS = ("location", "motion", "photos", "contacts", "calendar",
             "reminders", "media", "health", "scan", "focus", "capture")
MOTION_MODES = {"walking", "running", "cycling", "driving", "unknown"}
FOCUS_MODES = {"do-not-disturb", "locked", "idle"}
MAX_SCAN_TEXT = 200000
FAULT_RATES = ("fail_rate", "reset_rate", "throttle_rate")

# --- Item schemas (node-api.md "Item fields per endpoint") -------------------------------------
# A field name ending in "?" may be absent (a JSON null counts as absent for those). Types are
# checked lightly: "str", "num", "bool", "list", "obj", "str|null", a dict (an object whose fields
# follow that schema) or a one-element list (a list whose entries are objects of that schema).
LATLON = {"lat": "num", "lon": "num"}
SCHEMAS = {
    "location": {"version?": "str", "arrival": "str|null", "departure": "str|null", "lat": "num",
                 "lon": "num", "accuracy_m": "num", "fixes": "num"},
    "motion": {"start": "str", "end": "str", "mode": "str", "distance_m": "num",
               "from": LATLON, "to": LATLON},
    "photos": {"taken_at": "str", "time_floating?": "bool", "lat": "num", "lon": "num", "media?": "str",
               "altitude_m?": "num", "accuracy_m?": "num",
               "camera?": {"make?": "str", "model?": "str"}, "file?": {"name?": "str", "size?": "num"}},
    "contacts": {"version": "str", "full_name": "str", "given?": "str", "family?": "str",
                 "nicknames?": "list", "emails": [{"value": "str", "type?": "str"}],
                 "phones": [{"value": "str", "type?": "str"}], "org?": "str", "title?": "str",
                 "birthday?": "str",
                 "addresses": [{"street?": "str", "city?": "str", "region?": "str",
                                "postcode?": "str", "country?": "str", "type?": "str"}],
                 "urls?": "list", "categories?": "list"},
    "calendar": {"version": "str", "uid": "str", "title": "str", "start": "str", "end": "str",
                 "all_day": "bool", "tzid?": "str", "location?": "str", "status?": "str",
                 "organizer?": {"name?": "str", "email": "str"},
                 "attendees": [{"name?": "str", "email": "str", "role?": "str", "partstat?": "str"}],
                 "recurring": "bool", "calendar": "str"},
    "reminders": {"version": "str", "title": "str", "due?": "str", "completed_at?": "str",
                  "status?": "str", "priority?": "num", "list": "str"},
    "media": {"started_at": "str", "ended_at": "str", "played_s": "num", "title": "str",
              "artist?": "str", "album?": "str", "length_s?": "num", "player": "str"},
    "health:day": {"version": "str", "date": "str", "tz": "str", "steps?": "num",
                   "active_energy_kcal?": "num", "resting_heart_rate?": "num",
                   "heart_rate?": {"min?": "num", "avg?": "num", "max?": "num"},
                   "hrv_ms?": "num", "sleep_s?": "num"},
    "health:workout": {"activity": "str", "start": "str", "end": "str",
                       "energy_kcal?": "num", "distance_m?": "num"},
    "health:sleep": {"start": "str", "end": "str",
                     "stages?": {"deep_s?": "num", "light_s?": "num", "rem_s?": "num", "awake_s?": "num"}},
    "scan": {"version": "str", "captured_at": "str|null", "text": "str", "pages": "num", "lang": "str",
             "confidence": "num", "file": {"name": "str", "size": "num"}},
    "focus": {"version": "str", "mode": "str", "start": "str", "end": "str|null", "via": "str"},
    "capture": {"text": "str", "captured_at": "str", "via": "str"},
}
TYPE_NAMES = {"str": "a string", "num": "a number", "bool": "a boolean", "list": "a list",
              "obj": "an object", "str|null": "a string or null"}


def type_ok(value, kind):
    if kind == "str":
        return isinstance(value, str)
    if kind == "num":   # bool is an int subclass in Python, but not a JSON number
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "list":
        return isinstance(value, list)
    if kind == "str|null":
        return value is None or isinstance(value, str)
    return isinstance(value, dict)


def check_fields(obj, schema, path):
    """Returns a message for the first field of `obj` that breaks `schema`, else None."""
    for name, kind in schema.items():
        optional = name.endswith("?")
        name = name.rstrip("?")
        where = f"{path}{name}"
        if name not in obj or (optional and obj[name] is None):
            if optional:
                continue
            return f"{where} is required"
        value = obj[name]
        if isinstance(kind, dict):
            if not isinstance(value, dict):
                return f"{where} must be an object"
            problem = check_fields(value, kind, where + ".")
        elif isinstance(kind, list):
            if not isinstance(value, list):
                return f"{where} must be a list"
            problem = None
            for n, entry in enumerate(value):
                if not isinstance(entry, dict):
                    return f"{where}[{n}] must be an object"
                problem = check_fields(entry, kind[0], f"{where}[{n}].")
                if problem:
                    break
        else:
            problem = None if type_ok(value, kind) else f"{where} must be {TYPE_NAMES[kind]}"
        if problem:
            return problem
    return None


def check_item(endpoint, item):
    """Returns what is wrong with one item, or None. Tombstones need only a key."""
    if not isinstance(item, dict):
        return "item must be an object"
    key = item.get("key")
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY_CHARS:
        return f"key must be a string of 1..{MAX_KEY_CHARS} characters"
    if item.get("version") is not None and not isinstance(item["version"], str):
        return "version must be a string"
    if item.get("deleted") is not None and not isinstance(item["deleted"], bool):
        return "deleted must be a boolean"
    if item.get("deleted") is True:
        return None
    schema_name = endpoint
    if endpoint == "health":
        kind = item.get("kind")
        if kind not in ("day", "workout", "sleep"):
            return "kind must be one of day, workout, sleep"
        schema_name = f"health:{kind}"
    problem = check_fields(item, SCHEMAS[schema_name], "")
    if problem:
        return problem
    if endpoint == "motion" and item["mode"] not in MOTION_MODES:
        return "mode must be one of " + ", ".join(sorted(MOTION_MODES))
    if endpoint == "focus" and item["mode"] not in FOCUS_MODES:
        return "mode must be one of " + ", ".join(sorted(FOCUS_MODES))
    if endpoint == "scan" and len(item["text"]) > MAX_SCAN_TEXT:
        return f"text must be at most {MAX_SCAN_TEXT} characters"
    if endpoint == "scan" and not 0 <= item["confidence"] <= 100:
        return "confidence must be between 0 and 100"
    if endpoint == "capture" and not item["text"]:
        return "text must not be empty"
    return None


def check_envelope(body):
    """Returns what is wrong with the batch around the items, or None."""
    if not isinstance(body, dict):
        return "body must be a JSON object"
    actor = body.get("actor")
    if not isinstance(actor, str) or not actor.startswith("device:"):
        return 'actor must be a string "device:<device id>"'
    if not isinstance(body.get("source"), str) or not body["source"]:
        return "source must be a non-empty string"
    device = body.get("device")
    if not isinstance(device, dict):
        return "device must be an object"
    for field in ("id", "name", "platform", "agent"):
        if not isinstance(device.get(field), str):
            return f"device.{field} must be a string"
    items = body.get("items")
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_ITEMS:
        return f"items must be a list of 1..{MAX_ITEMS} items"
    return None

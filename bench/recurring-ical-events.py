"""The calendar benchmark's Python baseline: icalendar's parse plus recurring_ical_events over
the same window (1970 to WINDOW_END), counting occurrences.
usage: recurring-ical-events.py FILE.ics WINDOW_END_UNIX_SECONDS"""
import datetime as dt
import sys

import icalendar
import recurring_ical_events

calendar = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
end = dt.datetime.fromtimestamp(int(sys.argv[2]), dt.timezone.utc)
occurrences = recurring_ical_events.of(calendar).between(dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc), end)
print(f"{len(occurrences)} occurrences")

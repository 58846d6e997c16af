#ifndef HERALD_CICAL_SHIM_H
#define HERALD_CICAL_SHIM_H
/* libical 3 (Debian's libical-dev): the iCalendar parser, recurrence expansion and time zones. */
#include <libical/ical.h>
#endif

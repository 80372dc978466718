/**
 * Instants shown in an IANA time zone, through `Intl` (no time zone data of our own): the ISO form
 * with the zone's offset at that instant, and a short form for people.
 */

/** One formatter per zone: creating an `Intl.DateTimeFormat` costs far more than using one. */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Zones looked at are few (the configured one and what jobs use); the cap only guards a flood. */
const maxFormatters = 256;

/**
 * An offset zone (`+01:00`, `-0500`): no IANA name starts with a sign. Node 22 and newer take these
 * in `Intl.DateTimeFormat` (ECMA-402's offset time zones), Node 20 refused them; a job's zone stays
 * a name on every version, so it follows the zone's summer time.
 */
const offsetZone = /^\s*[+-]/;

/** True when `timezone` is an IANA zone name this runtime knows (case-insensitive, as `Intl` reads it). */
export function isValidTimezone(timezone: string): boolean {
  if (timezone.trim() === '' || offsetZone.test(timezone)) return false;
  try {
    // Through the cache: a new Intl.DateTimeFormat costs about 0.3 ms. It throws a RangeError for a zone it does not know.
    formatter(timezone);
    return true;
  } catch {
    return false;
  }
}

/** `ms` as ISO 8601 with the zone's offset at that instant, to the second: `2026-11-24T14:05:00+01:00`. */
export function formatIsoInZone(ms: number, timezone: string): string {
  const parts = zonedParts(ms, timezone);
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${parts.offset}`;
}

/** `ms` for people, in the zone: `Tue 24 Nov 2026 14:05 Europe/Berlin`. */
export function formatReadableInZone(ms: number, timezone: string): string {
  const parts = zonedParts(ms, timezone);
  return `${parts.weekday} ${Number(parts.day)} ${parts.monthName} ${parts.year} ${parts.hour}:${parts.minute} ${timezone}`;
}

/** The zone's offset from UTC at instant `ms`, as `+01:00` (`+00:00` for UTC). */
export function offsetInZone(ms: number, timezone: string): string {
  return zonedParts(ms, timezone).offset;
}

interface ZonedParts {
  year: string;
  month: string;
  monthName: string;
  day: string;
  weekday: string;
  hour: string;
  minute: string;
  second: string;
  offset: string;
}

function zonedParts(ms: number, timezone: string): ZonedParts {
  const found: Record<string, string> = {};
  for (const part of formatter(timezone).formatToParts(new Date(ms))) found[part.type] = part.value;
  const date = new Date(Date.UTC(Number(found.year), Number(found.month) - 1, Number(found.day)));
  return {
    year: found.year ?? '',
    month: found.month ?? '',
    monthName: monthNames[date.getUTCMonth()] ?? '',
    day: found.day ?? '',
    weekday: weekdayNames[date.getUTCDay()] ?? '',
    hour: found.hour ?? '',
    minute: found.minute ?? '',
    second: found.second ?? '',
    // `longOffset` reads `GMT+01:00`, or just `GMT` at offset zero.
    offset: (found.timeZoneName ?? 'GMT').replace('GMT', '') || '+00:00',
  };
}

// English names of our own: locale data varies between ICU builds, and these are read by the model too.
const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const weekdayNames = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function formatter(timezone: string): Intl.DateTimeFormat {
  let found = formatters.get(timezone);
  if (!found) {
    if (formatters.size >= maxFormatters) formatters.clear();
    found = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    formatters.set(timezone, found);
  }
  return found;
}

// RFC 5545 text for an ICS feed (docs/calendar.md "ICS feeds"): one VCALENDAR of VEVENTs, CRLF line ends, lines
// folded at 75 octets without splitting a UTF-8 character, TEXT values escaped (RFC 5545 §3.3.11), times in UTC.
// Pure: it writes what it is given.

export interface IcsEvent {
  /** Globally unique and stable across fetches, so a subscribed calendar updates the event instead of adding one. */
  uid: string;
  start: Date;
  /** When the event's source last changed (DTSTAMP and LAST-MODIFIED): stable between fetches of an unchanged feed. */
  modified: Date;
  summary: string;
  description: string;
  categories: string[];
  status: 'CONFIRMED' | 'TENTATIVE' | 'CANCELLED';
}

/** A post is an instant; calendars draw a zero-length event as a sliver, so each event is shown this long. */
export const ICS_EVENT_MINUTES = 15;
const FOLD_OCTETS = 75;

/** `YYYYMMDDTHHMMSSZ` (FORM #2, UTC). */
export function icsTime(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** Control characters TEXT may not hold (RFC 5545 §3.3.11 allows HTAB only); line breaks are escaped before. */
function isControl(char: string): boolean {
  const code = char.charCodeAt(0);
  return (code < 0x20 && code !== 0x09) || code === 0x7f;
}

/** A TEXT value: backslash, semicolon and comma escaped, line breaks as `\n`, other control characters dropped. */
export function escapeText(value: string): string {
  const escaped = value
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
  return [...escaped].filter((char) => !isControl(char)).join('');
}

/** One content line folded at 75 octets: continuation lines begin with a space, which counts in their 75. */
export function foldLine(line: string): string {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const char of line) {
    const size = Buffer.byteLength(char, 'utf8');
    if (octets + size > FOLD_OCTETS) {
      out.push(current);
      current = ' ';
      octets = 1;
    }
    current += char;
    octets += size;
  }
  out.push(current);
  return out.join('\r\n');
}

export function renderIcs(calendar: { name: string; prodId: string; events: IcsEvent[] }): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    `PRODID:${calendar.prodId}`,
    'CALSCALE:GREGORIAN',
    `X-WR-CALNAME:${escapeText(calendar.name)}`,
    // How often a subscriber should fetch again (a de facto property Outlook and Apple read; Google has its own).
    'REFRESH-INTERVAL;VALUE=DURATION:PT1H',
    'X-PUBLISHED-TTL:PT1H',
  ];
  for (const event of calendar.events) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:${escapeText(event.uid)}`,
      `DTSTAMP:${icsTime(event.modified)}`,
      `LAST-MODIFIED:${icsTime(event.modified)}`,
      `DTSTART:${icsTime(event.start)}`,
      `DURATION:PT${ICS_EVENT_MINUTES}M`,
      `SUMMARY:${escapeText(event.summary)}`,
      `DESCRIPTION:${escapeText(event.description)}`,
      ...(event.categories.length > 0 ? [`CATEGORIES:${event.categories.map(escapeText).join(',')}`] : []),
      `STATUS:${event.status}`,
      'TRANSP:TRANSPARENT',
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return lines.map(foldLine).join('\r\n') + '\r\n';
}

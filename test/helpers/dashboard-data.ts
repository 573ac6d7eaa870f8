// What the dashboard's browser tests (test/tools/dashboard*.test.ts) compare a page with: the server's own answer
// to GET /v1/…, and a moment as the browser's wall clock in a time zone shows it.
import assert from 'node:assert/strict';

/** GET /v1{pathname} on the server at `url` with `key`, which must answer 200; the body is always read (an unread
 * body holds its socket open). */
export async function getData<T>(url: string, key: string, pathname: string): Promise<T> {
  const response = await fetch(`${url}/v1${pathname}`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await response.json()) as { data: T };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.data;
}

/** A moment as `YYYY-MM-DDTHH:MM` on the wall clock of `zone`: a datetime-local value, or what a page prints. */
export function wallClock(at: string | number | Date, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

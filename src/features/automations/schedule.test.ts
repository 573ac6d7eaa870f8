// RRULE expansion across DST changes in two time zones: a 09:00 local rule stays 09:00 local, so its UTC instant
// moves by an hour when the zone changes offset, whatever the host's own zone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextOccurrence, normaliseRule, occurrencesBetween, ScheduleError } from './schedule.ts';

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

test('Europe/Paris 09:00 daily is 07:00Z before the October change and 08:00Z after it', () => {
  const source = { rrule: 'DTSTART;TZID=Europe/Paris:20261020T090000\nRRULE:FREQ=DAILY', timezone: 'Europe/Paris' };
  const got = occurrencesBetween(source, new Date('2026-10-24T00:00:00Z'), new Date('2026-10-26T23:59:00Z'), 10);
  assert.deepEqual(iso(got), ['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z']);
});

test('America/New_York 09:00 weekly on Sundays crosses the March change (14:00Z → 13:00Z)', () => {
  const source = {
    rrule: 'DTSTART;TZID=America/New_York:20270301T090000\nRRULE:FREQ=WEEKLY;BYDAY=SU',
    timezone: 'America/New_York',
  };
  const got = occurrencesBetween(source, new Date('2027-03-01T00:00:00Z'), new Date('2027-03-21T00:00:00Z'), 10);
  assert.deepEqual(iso(got), ['2027-03-07T14:00:00.000Z', '2027-03-14T13:00:00.000Z']);
});

test('a 02:30 local time that the spring change skips is not invented twice', () => {
  const source = {
    rrule: 'DTSTART;TZID=America/New_York:20270312T023000\nRRULE:FREQ=DAILY;COUNT=3',
    timezone: 'America/New_York',
  };
  const got = occurrencesBetween(source, new Date('2027-03-01T00:00:00Z'), new Date('2027-03-20T00:00:00Z'), 10);
  assert.equal(new Set(iso(got)).size, got.length);
  assert.equal(got.length, 3);
});

test('nextOccurrence is strictly after, and null once COUNT is spent', () => {
  const source = { rrule: 'DTSTART;TZID=UTC:20260101T090000\nRRULE:FREQ=DAILY;COUNT=2', timezone: 'UTC' };
  assert.equal(nextOccurrence(source, new Date('2026-01-01T09:00:00Z'))?.toISOString(), '2026-01-02T09:00:00.000Z');
  assert.equal(nextOccurrence(source, new Date('2026-01-02T09:00:00Z')), null);
});

test('normaliseRule anchors a bare RRULE at the local time of creation and refuses bad input', () => {
  const text = normaliseRule(
    { rrule: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0', timezone: 'Europe/Paris' },
    new Date('2026-11-26T10:00:00Z'),
  );
  assert.equal(text, 'DTSTART;TZID=Europe/Paris:20261126T110000\nRRULE:FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0');
  assert.throws(() => normaliseRule({ rrule: 'FREQ=DAILY', timezone: 'Mars/Olympus' }, new Date()), ScheduleError);
  assert.throws(() => normaliseRule({ rrule: 'BYDAY=MO', timezone: 'UTC' }, new Date()), ScheduleError);
  assert.throws(() => normaliseRule({ rrule: 'FREQ=SECONDLY', timezone: 'UTC' }, new Date()), ScheduleError);
});

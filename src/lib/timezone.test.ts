// Local times in IANA zones across daylight-saving changes: whole-hour and half-hour shifts, both hemispheres.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalZone, hasZone, localIso, offsetMinutes, resolveLocal } from './timezone.ts';

test('an ordinary local time names one instant', () => {
  assert.deepEqual(resolveLocal('2026-07-01T09:00', 'America/New_York'), {
    kind: 'exact',
    instant: new Date('2026-07-01T13:00:00Z'),
  });
  assert.deepEqual(resolveLocal('2026-05-01T09:15:30.5', 'Asia/Kathmandu'), {
    kind: 'exact',
    instant: new Date('2026-05-01T03:30:30.500Z'),
  });
});

test('a skipped local time gives the gap and the readings either side', () => {
  assert.deepEqual(resolveLocal('2026-03-08T02:30', 'America/New_York'), {
    kind: 'skipped',
    readings: ['2026-03-08T01:30:00-05:00', '2026-03-08T03:30:00-04:00'],
    gapStart: '2026-03-08T02:00',
    gapEnd: '2026-03-08T03:00',
  });
  // Lord Howe Island moves by 30 minutes.
  assert.deepEqual(resolveLocal('2026-10-04T02:15', 'Australia/Lord_Howe'), {
    kind: 'skipped',
    readings: ['2026-10-04T01:45:00+10:30', '2026-10-04T02:45:00+11:00'],
    gapStart: '2026-10-04T02:00',
    gapEnd: '2026-10-04T02:30',
  });
});

test('a repeated local time gives both readings, earlier first', () => {
  assert.deepEqual(resolveLocal('2026-11-01T01:30', 'America/New_York'), {
    kind: 'repeated',
    readings: ['2026-11-01T01:30:00-04:00', '2026-11-01T01:30:00-05:00'],
  });
  assert.deepEqual(resolveLocal('2026-04-05T01:45', 'Australia/Lord_Howe'), {
    kind: 'repeated',
    readings: ['2026-04-05T01:45:00+11:00', '2026-04-05T01:45:00+10:30'],
  });
});

test('dates that do not exist, zone names and offsets', () => {
  assert.deepEqual(resolveLocal('2026-02-30T09:00', 'UTC'), { kind: 'invalid' });
  assert.deepEqual(resolveLocal('2026-01-01T24:00', 'UTC'), { kind: 'invalid' });
  assert.deepEqual(resolveLocal('2026-01-01', 'UTC'), { kind: 'invalid' });
  assert.equal(canonicalZone('europe/paris'), 'Europe/Paris');
  assert.equal(canonicalZone('Not/AZone'), null);
  // The engine takes bare offsets as zones; an offset has no daylight-saving rules, so it is not one.
  assert.equal(canonicalZone('+05:00'), null);
  assert.equal(canonicalZone('-0530'), null);
  assert.equal(canonicalZone('Etc/GMT+5'), 'Etc/GMT+5');
  assert.equal(hasZone('2026-01-01T00:00:00Z'), true);
  assert.equal(hasZone('2026-01-01T00:00:00-03:30'), true);
  assert.equal(hasZone('2026-01-01T00:00:00'), false);
  assert.equal(localIso(Date.parse('2026-01-01T00:00:00Z'), 'Asia/Kathmandu'), '2026-01-01T05:45:00+05:45');
});

test('offsetMinutes, cached by the hour, agrees with the zone data minute by minute across changes', () => {
  const truth = (instant: number, zone: string) => {
    const p = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
        .formatToParts(new Date(instant))
        .map((x) => [x.type, x.value]),
    );
    const wall = Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!);
    return Math.round((wall - (instant - (instant % 1000))) / 60_000);
  };
  // Each window holds a change: New York and Paris (an hour), Lord Howe (half an hour), Chatham (at :45 local).
  const windows: Array<[string, string]> = [
    ['America/New_York', '2027-03-14T05:00:00Z'],
    ['America/New_York', '2027-11-07T04:00:00Z'],
    ['Europe/Paris', '2027-03-28T00:00:00Z'],
    ['Australia/Lord_Howe', '2027-04-03T14:00:00Z'],
    ['Pacific/Chatham', '2027-09-25T13:00:00Z'],
  ];
  let changes = 0;
  for (const [zone, start] of windows) {
    let previous: number | undefined;
    for (let t = Date.parse(start); t < Date.parse(start) + 4 * 3_600_000; t += 60_000) {
      const offset = offsetMinutes(t, zone);
      assert.equal(offset, truth(t, zone), `${zone} at ${new Date(t).toISOString()}`);
      if (previous !== undefined && offset !== previous) changes++;
      previous = offset;
    }
  }
  assert.equal(changes, windows.length, 'each window crossed its change');
});

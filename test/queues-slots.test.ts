// The slot arithmetic of queues (src/features/queues/queues.slots.ts), pure: weekly wall-clock slots in New York and
// Paris across both daylight-saving changes of 2027, pauses read in each slot's own zone, one occurrence for two
// slots naming the same instant.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { localInstant, occurrences, type WeeklySlot } from '../src/features/queues/queues.slots.ts';

const NY = 'America/New_York';
const PARIS = 'Europe/Paris';
const sunday = (time: string, timezone: string): WeeklySlot => ({ day_of_week: 0, time, timezone });
const at = (iso: string) => new Date(iso).getTime();
const between = (slots: WeeklySlot[], from: string, to: string, pauses: string[] = []) =>
  occurrences({ slots, pauses }, new Date(from), new Date(to)).map((o) => o.at.toISOString());

describe('a slot the clocks skip is read after the jump', () => {
  test('02:30 in New York on 14 March 2027 is 03:30 EDT, the Sundays around it keep 02:30', () => {
    assert.deepEqual(between([sunday('02:30', NY)], '2027-03-07T00:00:00Z', '2027-03-22T00:00:00Z'), [
      '2027-03-07T07:30:00.000Z', // EST
      '2027-03-14T07:30:00.000Z', // the gap: 03:30 EDT
      '2027-03-21T06:30:00.000Z', // EDT
    ]);
  });

  test('02:30 in Paris on 28 March 2027 is 03:30 CEST', () => {
    assert.deepEqual(between([sunday('02:30', PARIS)], '2027-03-21T00:00:00Z', '2027-04-05T00:00:00Z'), [
      '2027-03-21T01:30:00.000Z', // CET
      '2027-03-28T01:30:00.000Z', // the gap: 03:30 CEST
      '2027-04-04T00:30:00.000Z', // CEST
    ]);
  });
});

describe('a slot the clocks repeat is its first occurrence', () => {
  test('01:30 in New York on 7 November 2027 is 01:30 EDT', () => {
    assert.equal(localInstant('2027-11-07', '01:30', NY), at('2027-11-07T05:30:00Z'));
    assert.equal(localInstant('2027-11-14', '01:30', NY), at('2027-11-14T06:30:00Z'));
  });

  test('02:30 in Paris on 31 October 2027 is 02:30 CEST', () => {
    assert.equal(localInstant('2027-10-31', '02:30', PARIS), at('2027-10-31T00:30:00Z'));
    assert.equal(localInstant('2027-11-07', '02:30', PARIS), at('2027-11-07T01:30:00Z'));
  });
});

describe('windows, zones and pauses', () => {
  test('slots of two zones come out merged in time order', () => {
    const slots = [sunday('09:00', NY), sunday('09:00', PARIS)];
    assert.deepEqual(between(slots, '2027-03-28T00:00:00Z', '2027-03-29T00:00:00Z'), [
      '2027-03-28T07:00:00.000Z',
      '2027-03-28T13:00:00.000Z',
    ]);
  });

  test('a pause is the local date of the slot in its own zone', () => {
    // 23:30 Saturday in New York is Sunday in UTC: pausing the Saturday removes it, pausing the Sunday does not.
    const slots = [{ day_of_week: 6, time: '23:30', timezone: NY }];
    const window = ['2027-03-06T00:00:00Z', '2027-03-08T00:00:00Z'] as const;
    assert.deepEqual(between(slots, ...window), ['2027-03-07T04:30:00.000Z']);
    assert.deepEqual(between(slots, ...window, ['2027-03-06']), []);
    assert.deepEqual(between(slots, ...window, ['2027-03-07']), ['2027-03-07T04:30:00.000Z']);
  });

  test('two slots naming the same instant are one occurrence', () => {
    const slots = [sunday('14:00', PARIS), sunday('13:00', 'UTC')];
    assert.equal(between(slots, '2027-01-03T00:00:00Z', '2027-01-04T00:00:00Z').length, 1);
  });

  test('the window is half-open and the limit cuts it', () => {
    const slots = [0, 1, 2, 3, 4, 5, 6].map((d) => ({ day_of_week: d, time: '12:00', timezone: 'UTC' }));
    assert.deepEqual(between(slots, '2027-01-01T12:00:00Z', '2027-01-03T12:00:00Z'), [
      '2027-01-01T12:00:00.000Z',
      '2027-01-02T12:00:00.000Z',
    ]);
    const limited = occurrences(
      { slots, pauses: [] },
      new Date('2027-01-01T00:00:00Z'),
      new Date('2027-02-01T00:00:00Z'),
      3,
    );
    assert.equal(limited.length, 3);
  });
});

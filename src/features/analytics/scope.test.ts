// The summary series' zone (docs/analytics.md "API", its series): UTC when absent, a 422 `timezone_unknown` for a
// name that is not a zone.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../app/errors.ts';
import { seriesZone } from './scope.ts';

describe('the series zone', () => {
  test('absent is UTC; a known name is kept; an unknown name is 422', () => {
    assert.equal(seriesZone(undefined), 'UTC');
    assert.equal(seriesZone('Europe/Paris'), 'Europe/Paris');
    assert.throws(
      () => seriesZone('Mars/Olympus_Mons'),
      (e: unknown) => e instanceof AppError && e.status === 422 && e.details?.[0]?.rule === 'timezone_unknown',
    );
  });
});

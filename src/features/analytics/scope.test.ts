// The summary series' zone (docs/analytics.md "API", its series): a name neither Node nor PostgreSQL knows is the
// same 422 `timezone_unknown`, whichever of the two refuses it; any other database error passes through untouched.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../app/errors.ts';
import { seriesZone, zoneRefusedByDatabase } from './scope.ts';

describe('the series zone', () => {
  test('absent is UTC; a known name is kept; an unknown name is 422', () => {
    assert.equal(seriesZone(undefined), 'UTC');
    assert.equal(seriesZone('Europe/Paris'), 'Europe/Paris');
    assert.throws(
      () => seriesZone('Mars/Olympus_Mons'),
      (e: unknown) => e instanceof AppError && e.status === 422 && e.details?.[0]?.rule === 'timezone_unknown',
    );
  });

  test("PostgreSQL's refusal of a zone Node knows becomes the same 422; other errors are kept", () => {
    const refused = zoneRefusedByDatabase(
      Object.assign(new Error('time zone "America/Ciudad_Juarez" not recognized'), { code: '22023' }),
      'America/Ciudad_Juarez',
    );
    assert.ok(refused instanceof AppError);
    assert.equal(refused.status, 422);
    assert.equal(refused.details?.[0]?.path, '/tz');
    assert.equal(refused.details?.[0]?.rule, 'timezone_unknown');
    const other = Object.assign(new Error('invalid value for parameter'), { code: '22023' });
    assert.equal(zoneRefusedByDatabase(other, 'UTC'), other);
    const lost = Object.assign(new Error('connection terminated'), { code: '57P01' });
    assert.equal(zoneRefusedByDatabase(lost, 'UTC'), lost);
  });
});

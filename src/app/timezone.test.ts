// An unknown zone's one answer (timezone.ts): PostgreSQL's refusal of a zone Node knows is the same 422
// `timezone_unknown` at the field; any other database error passes through untouched.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from './errors.ts';
import { zoneRefusedByDatabase } from './timezone.ts';

describe('an unknown time zone', () => {
  test("PostgreSQL's refusal of a zone Node knows becomes the same 422; other errors are kept", () => {
    const refused = zoneRefusedByDatabase(
      Object.assign(new Error('time zone "America/Ciudad_Juarez" not recognized'), { code: '22023' }),
      'America/Ciudad_Juarez',
      '/tz',
    );
    assert.ok(refused instanceof AppError);
    assert.equal(refused.status, 422);
    assert.equal(refused.details?.[0]?.path, '/tz');
    assert.equal(refused.details?.[0]?.rule, 'timezone_unknown');
    const other = Object.assign(new Error('invalid value for parameter'), { code: '22023' });
    assert.equal(zoneRefusedByDatabase(other, 'UTC', '/tz'), other);
    const lost = Object.assign(new Error('connection terminated'), { code: '57P01' });
    assert.equal(zoneRefusedByDatabase(lost, 'UTC', '/tz'), lost);
  });
});

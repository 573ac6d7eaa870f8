// docs/api.md lists the contract's names (scopes, settings, enumerations, error codes, event types): its generated
// tables must equal what the code declares, name for name both ways, and none may be empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { API_DOC, ENUMERATIONS, apiTables, generatedRegion } from '../scripts/api-tables.ts';
import { SETTINGS } from '../src/config.ts';
import { ERROR_CATALOGUE } from '../src/app/errors.ts';
import { EVENT_TYPES } from '../src/features/events/outbox.ts';
import { SCOPES } from '../src/features/keys/scopes.ts';
import { PLATFORM_ERRORS } from '../src/platforms/errors.ts';

const REGENERATE = 'run `node scripts/api-tables.ts --write`';
const doc = await readFile(API_DOC, 'utf8');

/** Each `## Title` of a region → the first cell of every row of its table. */
function tableKeys(region: string): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  for (const section of region.split(/^## /m).slice(1)) {
    const [title, ...lines] = section.split('\n');
    const rows = lines.filter((l) => l.startsWith('|')).slice(2); // past the header and the |---| line
    tables.set(
      title!.trim(),
      rows.map((r) =>
        r
          .split(' | ')[0]!
          .replace(/^\|\s*/, '')
          .trim(),
      ),
    );
  }
  return tables;
}

test('every source of a table has entries (an emptied list cannot pass as documented)', () => {
  assert.ok(SCOPES.length > 0, 'no scopes');
  assert.ok(SETTINGS.length > 0, 'no settings');
  assert.ok(ENUMERATIONS.length > 0, 'no enumerations');
  for (const e of ENUMERATIONS) assert.ok(e.values.length > 0, `enumeration ${e.name} has no values`);
  assert.ok(Object.keys(ERROR_CATALOGUE).length > 0, 'no API error codes');
  assert.ok(Object.keys(PLATFORM_ERRORS).length > 0, 'no platform error codes');
  assert.ok(EVENT_TYPES.length > 0, 'no event types');
});

test('docs/api.md has its generated region, and every table there has rows', () => {
  const region = generatedRegion(doc);
  assert.ok(region !== undefined, `docs/api.md lost its generation markers; restore them and ${REGENERATE}`);
  const tables = tableKeys(region);
  assert.deepEqual(
    [...tables.keys()],
    ['Scopes', 'Settings', 'Enumerations', 'API error codes', 'Platform error codes', 'Event types'],
  );
  for (const [title, keys] of tables) assert.ok(keys.length > 0, `the ${title} table of docs/api.md is empty`);
});

test('the names in docs/api.md are the names in the code, both ways', () => {
  const documented = tableKeys(generatedRegion(doc) ?? '');
  for (const [title, declared] of tableKeys(apiTables())) {
    const inDoc = new Set(documented.get(title) ?? []);
    const inCode = new Set(declared);
    const missingInDoc = declared.filter((k) => !inDoc.has(k));
    const missingInCode = [...inDoc].filter((k) => !inCode.has(k));
    assert.deepEqual(missingInDoc, [], `${title}: in the code, missing in docs/api.md (${REGENERATE})`);
    assert.deepEqual(missingInCode, [], `${title}: in docs/api.md, no longer in the code (${REGENERATE})`);
  }
});

test('the generated tables of docs/api.md are exactly what the code produces', () => {
  assert.equal(generatedRegion(doc), apiTables(), `docs/api.md is out of date: ${REGENERATE}`);
});

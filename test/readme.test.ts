// The README stays true: its first lines give the two commands, and its configuration table is exactly the one
// generated from the settings declared in src/config/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { configTable } from '../scripts/config-table.ts';
import { cliTable } from '../scripts/cli-table.ts';

const readme = await readFile(path.resolve(import.meta.dirname, '..', 'README.md'), 'utf8');

test('the README opens with the install-and-start command and the test command', () => {
  const head = readme.split('\n').slice(0, 8).join('\n');
  assert.match(head, /npm install && npm start/);
  assert.match(head, /npm test/);
});

test('the README configuration table is generated from the settings (run `node scripts/config-table.ts`)', () => {
  assert.ok(
    readme.includes(configTable()),
    'README.md configuration table is out of date: paste the output of `node scripts/config-table.ts`',
  );
});

test('the README command table is generated from the commands (run `node scripts/cli-table.ts`)', () => {
  assert.ok(
    readme.includes(cliTable()),
    'README.md command table is out of date: paste the output of `node scripts/cli-table.ts`',
  );
});

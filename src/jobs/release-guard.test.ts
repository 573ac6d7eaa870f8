import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const guard = path.join(import.meta.dirname, 'release-guard.ts');
const run = (message: string) =>
  spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `
  const { guardLocalQueueRelease } = await import(${JSON.stringify(guard)});
  guardLocalQueueRelease({ warn: (_o, m) => console.log('warned: ' + m) });
  Promise.reject(new Error(${JSON.stringify(message)}));
  setTimeout(() => console.log('still running'), 50);
`,
    ],
    { encoding: 'utf8' },
  );

test('the local queue failing to return its jobs on release is logged, and the process lives on', () => {
  const child = run('Error occurred whilst returning jobs from local queue to database queue: connect ECONNREFUSED');
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, /warned: a released job runner could not return its queued jobs/);
  assert.match(child.stdout, /still running/);
});

test('any other unhandled rejection still ends the process', () => {
  const child = run('something else broke');
  assert.notEqual(child.status, 0);
  assert.match(child.stderr, /something else broke/);
  assert.doesNotMatch(child.stdout, /still running/);
});

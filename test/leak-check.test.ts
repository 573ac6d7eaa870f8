// The leak check of every test file (test/helpers/leak-check.ts, preloaded by `npm test`) fails a file that leaves
// something open, names it and where it was made, and runs only after the file's own after hooks: proven here on
// fixture files run by a child `node --test`, as `npm test` runs each file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

function runWithLeakCheck(fixture: string): Promise<{ code: number | null; output: string; killed: boolean }> {
  // Without the runner context of this process, the child is a runner of its own (spawning one process per file).
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--test', '--test-reporter=spec', '--import', './test/helpers/leak-check.ts', `test/leak-check/${fixture}`],
      { cwd: ROOT, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const failure = error as (Error & { code?: number; killed?: boolean }) | null;
        resolve({ code: failure ? (failure.code ?? null) : 0, output: stdout + stderr, killed: !!failure?.killed });
      },
    );
  });
}

test('a file that leaves a server and an unref’d interval open fails, naming both and where they were made', async () => {
  const { code, output, killed } = await runWithLeakCheck('left-open.fixture.ts');
  // It fails rather than hanging on the server it left listening.
  assert.equal(killed, false, output);
  assert.notEqual(code, 0, output);
  assert.match(output, /left-open\.fixture\.ts left 2 resource\(s\) open/);
  assert.match(
    output,
    /server listening on 127\.0\.0\.1:\d+\n\s+during the before hook\n[^]*?left-open\.fixture\.ts:9:/,
  );
  assert.match(output, /setInterval\(forgottenPoll, 60000 ms\) \(unref’d\)\n[^]*?left-open\.fixture\.ts:13:/);
  // The test itself passed: only the leak failed the file.
  assert.match(output, /✔ uses the server/);
});

test("a file that closes everything in its own after hooks passes: the check runs after the file's hooks", async () => {
  const { code, output } = await runWithLeakCheck('closed-in-after.fixture.ts');
  assert.equal(code, 0, output);
  assert.match(output, /ℹ pass 1\n/);
  assert.doesNotMatch(output, /resource\(s\) open/);
});

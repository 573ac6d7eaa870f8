// What `herald serve` loads before its first request (docs/decisions.md "Start-up loads what serving needs"): the
// `herald` command's modules bring in no simulator, not twitter-text, not TypeBox's value checker and not Node's
// bundled undici; the simulators load on their handle's first use, once. Everything but the test runner is imported
// after the recording hook, so the hook sees every module the command's graph loads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';

const loaded: string[] = [];
registerHooks({
  load(url, context, nextLoad) {
    loaded.push(url);
    return nextLoad(url, context);
  },
});

const SIMULATOR_MODULE = /\/src\/sandbox\/(?!framework\/)[a-z]+\/[^/]+\.ts$/;
const simulatorModules = () => loaded.filter((url) => SIMULATOR_MODULE.test(url));
const twitterText = () => loaded.filter((url) => url.includes('/node_modules/twitter-text/'));
const typeboxValue = () => loaded.filter((url) => url.includes('/node_modules/typebox/build/value/'));
// Node's own list of the built-in modules it has loaded, internal ones included (no hook sees those; not typed).
const builtins = () => (process as NodeJS.Process & { moduleLoadList: string[] }).moduleLoadList;
const UNDICI = 'NativeModule internal/deps/undici/undici';

test("the herald command loads no simulator, not twitter-text, not TypeBox's value checker and not undici", async () => {
  assert.ok(!builtins().includes(UNDICI), 'the test runner itself loaded undici: this test sees nothing');
  await import('../src/cli.ts');
  assert.ok(
    loaded.some((url) => url.endsWith('/src/container.ts')),
    'the hook saw the command load',
  );
  assert.deepEqual(simulatorModules(), []);
  assert.deepEqual(twitterText(), []);
  assert.deepEqual(typeboxValue(), [], 'only an edit of platform_options needs typebox/value');
  assert.ok(!builtins().includes(UNDICI), 'an `import` of node:http or node:https loads undici');
});

test('a limit that counts with twitter-text loads it on its first count', async () => {
  const { limits } = await import('../src/platforms/x/limits.ts');
  assert.equal(limits.text.measure('see https://example.com'), 27);
  assert.notDeepEqual(twitterText(), []);
});

test('the simulators are known at once and loaded on the first load(), once', async () => {
  const { simulatorsOnFirstUse } = await import('../src/sandbox/simulators.ts');
  const { PLATFORM_NAMES } = await import('../src/platforms/limits.ts');
  const simulators = simulatorsOnFirstUse({ secret: 'startup-modules-test' });
  assert.deepEqual(simulators.platforms, PLATFORM_NAMES);
  assert.deepEqual(simulatorModules(), [], 'naming the platforms loads nothing');
  const [first, second] = await Promise.all([simulators.load(), simulators.load()]);
  assert.equal(first, second, 'one build, shared');
  assert.equal(await simulators.load(), first);
  assert.deepEqual([...first.keys()], [...PLATFORM_NAMES]);
  assert.ok(simulatorModules().some((url) => url.endsWith('/src/sandbox/x/tweets.ts')));
});

test('with the sandbox off there are no simulators and nothing to load', async () => {
  const { simulatorsOnFirstUse } = await import('../src/sandbox/simulators.ts');
  const off = simulatorsOnFirstUse(null);
  assert.deepEqual(off.platforms, []);
  assert.equal((await off.load()).size, 0);
});

// The lazily built simulators' app (sandbox-mount.ts): nothing is built until the first request under the prefix,
// concurrent first requests build it once, every body reaches it unread whatever its content type, a build that
// fails is tried again by the next request, and closing the served app closes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { registerLazySandbox } from './sandbox-mount.ts';

async function served(fail = 0) {
  const app = Fastify();
  const state = { builds: 0, closed: 0, fail };
  registerLazySandbox(app, '/sandbox', async () => {
    state.builds++;
    if (state.fail > 0) {
      state.fail--;
      throw new Error('the build failed');
    }
    const inner = Fastify();
    inner.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_r, body, done) => done(null, body));
    inner.post('/sandbox/echo', async (request) => ({
      type: request.headers['content-type'] ?? null,
      body: Buffer.isBuffer(request.body) ? request.body.toString('hex') : request.body,
    }));
    inner.get('/sandbox/x/ping', async () => ({ pong: true }));
    inner.addHook('onClose', async () => {
      state.closed++;
    });
    return inner;
  });
  app.get('/outside', async () => ({ ok: true }));
  await app.ready();
  return { app, state };
}

test('nothing is built before the first request under the prefix; concurrent first requests build once', async () => {
  const { app, state } = await served();
  assert.equal((await app.inject({ url: '/outside' })).statusCode, 200);
  assert.equal(state.builds, 0);
  const answers = await Promise.all(Array.from({ length: 5 }, () => app.inject({ url: '/sandbox/x/ping' })));
  assert.deepEqual(
    answers.map((a) => [a.statusCode, a.json()]),
    Array.from({ length: 5 }, () => [200, { pong: true }]),
  );
  assert.equal(state.builds, 1);
  assert.equal((await app.inject({ url: '/sandbox/nowhere' })).statusCode, 404, 'the inner app answers its own 404');
  await app.close();
  assert.equal(state.closed, 1, 'closing the served app closes the simulators');
});

test('every body reaches the simulators unread, whatever its content type', async () => {
  const { app } = await served();
  const json = await app.inject({ method: 'POST', url: '/sandbox/echo', payload: { a: 1 } });
  assert.deepEqual(json.json(), { type: 'application/json', body: { a: 1 } });
  const bytes = await app.inject({
    method: 'POST',
    url: '/sandbox/echo',
    headers: { 'content-type': 'application/octet-stream' },
    payload: Buffer.from([0, 1, 254, 255]),
  });
  assert.deepEqual(bytes.json(), { type: 'application/octet-stream', body: '0001feff' });
  const odd = await app.inject({
    method: 'POST',
    url: '/sandbox/echo',
    headers: { 'content-type': 'text/x-unknown' },
    payload: 'hello',
  });
  assert.equal(odd.statusCode, 415, 'a type the simulators do not parse is refused by them, as before: ' + odd.body);
  await app.close();
});

test('a build that fails answers 500 and is tried again by the next request', async () => {
  const { app, state } = await served(1);
  assert.equal((await app.inject({ url: '/sandbox/x/ping' })).statusCode, 500);
  const again = await app.inject({ url: '/sandbox/x/ping' });
  assert.equal(again.statusCode, 200, again.body);
  assert.equal(state.builds, 2);
  await app.close();
});

// Attack class: locking a person out of sign-in. Failed sign-ins slow down the address they come from (per email
// and address, and per address across emails) with growing waits; they never lock the account itself, so an
// outsider's wrong guesses cannot keep the owner out.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setPassword } from '../../src/features/users/users.service.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { hiddenField } from '../helpers/oauth.ts';

let t: TestApp;
const OWNER = 'owner@test.local';
const PASSWORD = 'the owner picked a long one';
const ATTACKER = '203.0.113.66';
const OWNER_ADDRESS = '198.51.100.7';

before(async () => {
  t = await buildTestApp();
  await setPassword(t.container.pool, OWNER, PASSWORD);
});
after(() => t.close());

/** One sign-in as a browser at `address` would send it: GET the form, then POST it with its cookie. */
async function attempt(address: string, email: string, password: string) {
  const form = await t.app.inject({ method: 'GET', url: '/login', remoteAddress: address });
  const cookie = form.cookies.find((c) => c.name.endsWith('herald_login'))!;
  return t.app.inject({
    method: 'POST',
    url: '/login',
    remoteAddress: address,
    headers: { cookie: `${cookie.name}=${cookie.value}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf: hiddenField(form.body, 'csrf'), email, password }).toString(),
  });
}

/** Lets every pending wait run out, as if the attacker had waited for it. */
async function waitsRunOut() {
  await t.container.pool.query(
    `UPDATE login_throttle SET next_attempt_at = now() - interval '1 second' WHERE next_attempt_at IS NOT NULL`,
  );
}

describe('sign-in throttle', () => {
  test('20 wrong passwords for the owner from one address do not keep the owner out from another address', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 20; i++) statuses.push((await attempt(ATTACKER, OWNER, `guess number ${i}`)).statusCode);
    assert.deepEqual(statuses.slice(0, 4), [401, 401, 401, 401], 'a few mistakes are free');
    assert.ok(
      statuses.slice(4).every((s) => s === 429),
      `then the attacker's address waits: ${statuses.join(' ')}`,
    );
    const owner = await attempt(OWNER_ADDRESS, OWNER, PASSWORD);
    assert.equal(owner.statusCode, 303, 'the right password from another address signs in at once');
    assert.ok(owner.cookies.some((c) => c.name === 'herald_session'));
  });

  test('a guessing address gets 429 with a Retry-After that grows, and the right password is not checked while it waits', async () => {
    // Another address than the first test's, whose per-minute request budget (a separate limit) is spent.
    const guesser = '203.0.113.67';
    for (let i = 1; i <= 5; i++) await attempt(guesser, OWNER, `first guesses ${i}`);
    const waiting = await attempt(guesser, OWNER, PASSWORD);
    assert.equal(waiting.statusCode, 429, 'even the right password waits: it is not looked at');
    assert.ok(Number(waiting.headers['retry-after']) >= 1);
    const seen: number[] = [];
    for (let round = 0; round < 4; round++) {
      await waitsRunOut();
      const res = await attempt(guesser, OWNER, `another guess ${round}`);
      assert.equal(res.statusCode, 429, `round ${round}`);
      seen.push(Number(res.headers['retry-after']));
    }
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, `Retry-After grows: ${seen.join(', ')}`);
  });

  test('one address guessing across many emails is slowed down too, known and unknown emails alike', async () => {
    const sprayer = '203.0.113.99';
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++) {
      const email = i % 2 ? `nobody${i}@example.com` : OWNER;
      statuses.push((await attempt(sprayer, email, `spray ${i}`)).statusCode);
    }
    assert.equal(statuses.at(-1), 429, `the address waits after repeated failures: ${statuses.join(' ')}`);
    const res = await attempt(sprayer, 'fresh@example.com', 'first try for this one');
    assert.equal(res.statusCode, 429, 'a fresh email from the same address waits as well');
    assert.ok(Number(res.headers['retry-after']) >= 1);
    assert.equal((await attempt(OWNER_ADDRESS, OWNER, PASSWORD)).statusCode, 303, 'the owner is still not affected');
  });
});

// The owner's password at first start: printed once with the key, it signs in; a second start prints nothing.
// An owner left without a password (an install older than sign-in) gets one at the next start, printed once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startHerald } from '../src/serve.ts';
import { TEST_SECRET } from './helpers/app.ts';
import { createTestDatabase } from './helpers/db.ts';
import { Browser, signIn } from './helpers/oauth.ts';

test('first start prints the owner password once; it signs in; later starts print none unless the owner has none', async () => {
  const db = await createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: db.connectionString,
    HERALD_SECRET_KEY: TEST_SECRET,
    PORT: '0',
    HERALD_OWNER_EMAIL: 'boss@example.com',
  });
  const logger = createLogger('silent');
  const start = async () => {
    let printed = '';
    const running = await startHerald(config, 'all', { logger, print: (text) => (printed += text) });
    return { running, printed: () => printed };
  };
  try {
    const first = await start();
    const password = /Password\s+(\S+)/.exec(first.printed())?.[1];
    assert.ok(password, `a password is printed:\n${first.printed()}`);
    assert.match(first.printed(), /API key\s+hk_test_/);
    const browser = new Browser(first.running.url!);
    assert.equal((await signIn(browser, 'boss@example.com', password)).status, 303);
    await first.running.stop();

    const second = await start();
    assert.doesNotMatch(second.printed(), /Password/);
    await second.running.container.pool.query(`UPDATE users SET password_hash = NULL WHERE email = 'boss@example.com'`);
    await second.running.stop();

    const third = await start();
    assert.match(third.printed(), /had no password\. This is shown once:\n\s+Password\s+\S+/);
    assert.doesNotMatch(third.printed(), /API key/);
    await third.running.stop();
  } finally {
    await db.drop();
  }
});

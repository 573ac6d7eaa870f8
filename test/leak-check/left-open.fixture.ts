// A test file that forgets to close its server and to clear an unref'd interval: the leak check must fail it and
// name both (test/leak-check.test.ts).
import { createServer } from 'node:http';
import { before, test } from 'node:test';

const server = createServer();

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

test('uses the server', () => {
  setInterval(function forgottenPoll() {}, 60_000).unref();
});

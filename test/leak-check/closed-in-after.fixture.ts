// A test file that closes its socket, interval and server in its own root `after` hooks, the server in the last
// one: the leak check, which must run after all of them, passes it (test/leak-check.test.ts).
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';

const server = createServer();
const interval = setInterval(() => {}, 60_000);
let socket: Socket | undefined;

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

after(() => {
  clearInterval(interval);
  socket?.destroy();
});

after(async () => {
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
});

test('uses the server through a socket kept open until the after hooks', async () => {
  const { port } = server.address() as { port: number };
  socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket!.once('connect', resolve));
});

// A TCP port for a server a test, benchmark or script starts as a child process.
import net from 'node:net';

/** A port nothing listens on right now: bind port 0 on loopback, read what the kernel chose, let it go. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

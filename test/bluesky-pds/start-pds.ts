// Starts a real PDS (and its PLC) from @atproto/dev-env, prints `{"url": …}` on one line, and runs until SIGTERM.
// A process of its own, so the PDS's native addon (better-sqlite3, which can abort at process exit on Node 24)
// never shares a process with the test runner.
import { createRequire } from 'node:module';

interface DevEnv {
  TestNetworkNoAppView: { create(options: object): Promise<{ pds: { url: string }; close(): Promise<void> }> };
}

process.env.LOG_ENABLED = 'false';
const { TestNetworkNoAppView } = createRequire(import.meta.url)('@atproto/dev-env') as DevEnv;
const network = await TestNetworkNoAppView.create({});
process.stdout.write(`${JSON.stringify({ url: network.pds.url })}\n`);
process.on('SIGTERM', () => {
  // Exit whether or not the network closes cleanly: the test that started it is done with it.
  void network.close().finally(() => process.exit(0));
});

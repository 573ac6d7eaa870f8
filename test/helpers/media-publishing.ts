// Publishing with media end to end: the simulators, a media test app listening on a port, and a worker. Signed URLs
// name HERALD_PUBLIC_URL (http://herald.test in tests); the simulators that fetch media (Meta's) must reach the
// listening app, as Meta reaches a correctly configured public URL, and fetch Herald's signed read URLs only, as
// Herald sets its own simulators (src/container.ts).
//
//   const p = await startMediaPublishing({ rateLimitFactor: 1000 });   // in before()
//   await p.close();                                                    // in after()
import { startWorker, type WorkerHandle } from '../../src/jobs/worker.ts';
import { signedReadUrlRules } from '../../src/features/media/storage/read-url-rules.ts';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.ts';
import { sandboxSecret } from './app.ts';
import { buildMediaTestApp, type MediaTestApp } from './media.ts';

export interface MediaPublishing {
  sandbox: RunningSandbox;
  t: MediaTestApp;
  worker: WorkerHandle;
  /** An all-scopes key of the app's workspace. */
  key: string;
  close(): Promise<void>;
}

export async function startMediaPublishing(options: { rateLimitFactor?: number } = {}): Promise<MediaPublishing> {
  const settings: Record<string, unknown> = {};
  const sandbox = await startSandbox({
    secret: sandboxSecret(),
    settings,
    ...(options.rateLimitFactor === undefined ? {} : { rateLimitFactor: options.rateLimitFactor }),
  });
  const t = await buildMediaTestApp({
    env: { HERALD_SANDBOX_URL: sandbox.url, HERALD_WORKER_POLL_INTERVAL_MS: '200', HERALD_PLATFORM_TIMEOUT_MS: '2000' },
  });
  settings.mediaFetchUrls = signedReadUrlRules({ ...t.config, publicUrl: t.origin });
  const library = t.container.mediaLibrary;
  t.container.mediaLibrary = {
    async sources(workspaceId, ids, target) {
      return (await library.sources(workspaceId, ids, target)).map((s) => ({
        ...s,
        signedUrl: async () => (await s.signedUrl!()).replace('http://herald.test', t.origin),
      }));
    },
  };
  const worker = await startWorker(t.container);
  const key = await t.key();
  return {
    sandbox,
    t,
    worker,
    key,
    async close() {
      await worker.stop();
      await t.close();
      await sandbox.close();
    },
  };
}

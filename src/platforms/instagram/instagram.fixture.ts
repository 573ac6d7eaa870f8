// Shared setup of the Instagram adapter tests: a simulator, the adapter and a connected account's session, with
// helpers for parts, a prepared JPEG and the posts held. Not a test file itself (the runner only picks up *.test.ts).
import { sandboxSession } from '../../../test/helpers/meta-adapter.ts';
import { jpeg, mediaFetchSettings, mediaSource } from '../../../test/helpers/media-sources.ts';
import { createPlatformHttp } from '../http.ts';
import { createPlatformRegistry } from '../registry.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import type { OutgoingPart, PlatformAdapter, PlatformSession, PreparedMedia } from '../types.ts';
import { partMemory } from '../part-memory.ts';

export interface Rig {
  sandbox: RunningSandbox;
  adapter: PlatformAdapter;
  session: PlatformSession;
  part(text: string, media: PreparedMedia[], options?: Record<string, unknown>): OutgoingPart;
  image(width?: number, height?: number): Promise<PreparedMedia[]>;
  held(): ReturnType<ReturnType<RunningSandbox['simulator']>['posts']>;
}

let account = 0;

export async function rig(settings: Record<string, unknown> = {}, now?: () => number): Promise<Rig> {
  const sandbox = await startSandbox({
    platforms: ['instagram'],
    settings: { ...(await mediaFetchSettings()), ...settings },
    ...(now ? { now } : {}),
  });
  const adapter = createPlatformRegistry().get('instagram')!;
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('instagram'), timeoutMs: 1500 });
  const session = await sandboxSession(adapter, http, `ig_specific_${++account}`, 'conn_ig');
  return {
    sandbox,
    adapter,
    session,
    part: (text, media, options = {}) => ({
      index: 0,
      text,
      media,
      parent: null,
      root: null,
      key: adapter.newPartKey(new Date()),
      firstSentAt: new Date(),
      options,
      ...partMemory(),
    }),
    image: (width = 40, height = 40) =>
      adapter.prepareMedia(session, [mediaSource(jpeg(width, height), 'image/jpeg', { width, height })], {}),
    held: async () =>
      (await sandbox.simulator('instagram').posts()).filter(
        (p) => p.account === session.connection.accountId && !p.deleted,
      ),
  };
}

// Shared setup of the LinkedIn adapter tests: a simulator, the adapter and a connected member session, with a shiftable
// clock and raw /rest calls. Not a test file itself (the runner only picks up *.test.ts).
import { createPlatformHttp } from '../http.ts';
import type { PlatformHttp } from '../http-contract.ts';
import { createPlatformRegistry } from '../registry.ts';
import type { OutgoingPart, PlatformAdapter, PlatformSession } from '../types.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { partMemory } from '../part-memory.ts';

/** The LinkedIn-Version of this month, the one the adapter under test is configured with. */
export const currentVersion = () => new Date().toISOString().slice(0, 7).replace('-', '');

/** Simulator settings of the "adapter specifics" suites: 100 kB video parts and short processing times. */
export const SPECIFICS_SETTINGS = {
  linkedinVideoPartBytes: 100_000,
  linkedinVideoProcessingMs: 1200,
  linkedinImageProcessingMs: 200,
};

export interface Rig {
  sandbox: RunningSandbox;
  http: PlatformHttp;
  adapter: PlatformAdapter;
  session: PlatformSession;
  shift(ms: number): void;
  part(text: string, extra?: Partial<OutgoingPart>): OutgoingPart;
  /** A raw /rest call with the version headers and the session's token. */
  rest(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    extra?: { json?: unknown; query?: Record<string, string>; headers?: Record<string, string> },
  ): ReturnType<PlatformHttp['request']>;
}

export async function rig(
  settings: Record<string, unknown> = {},
  options: { rateLimitFactor?: number; username?: string } = {},
): Promise<Rig> {
  let offset = 0;
  const sandbox = await startSandbox({
    platforms: ['linkedin'],
    settings,
    now: () => Date.now() + offset,
    rateLimitFactor: options.rateLimitFactor,
  });
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('linkedin'), timeoutMs: 3000 });
  const adapter = createPlatformRegistry({ linkedin: { apiVersion: currentVersion() } }).get('linkedin')!;
  const { account, credentials } = await adapter.connectSandbox(http, { username: options.username ?? 'li_member' });
  const session: PlatformSession = {
    connection: {
      id: 'conn_li',
      accountId: account.accountId,
      handle: account.handle,
      baseUrl: http.baseUrl,
      settings: {},
      sandbox: true,
    },
    credentials,
    http,
    clock: { now: () => new Date(Date.now() + offset) },
  };
  return {
    sandbox,
    http,
    adapter,
    session,
    shift: (ms) => {
      offset += ms;
    },
    part: (text, extra = {}) => ({
      index: 0,
      text,
      media: [],
      parent: null,
      root: null,
      key: adapter.newPartKey(new Date()),
      firstSentAt: new Date(),
      options: {},
      ...partMemory(),
      ...extra,
    }),
    rest: (method, path, extra = {}) =>
      http.request({
        method,
        path,
        bearer: session.credentials.accessToken,
        json: extra.json,
        query: extra.query,
        headers: { 'linkedin-version': currentVersion(), 'x-restli-protocol-version': '2.0.0', ...extra.headers },
      }),
  };
}

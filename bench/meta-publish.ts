// Benchmark: how long the container flow takes per post shape on Instagram and Threads, adapter against its
// simulator over real HTTP (media fetched by the simulator from a loopback server, containers polled until
// FINISHED, quota checked, published, permalink read). With the simulators' default processing times
// (image 0.4 s, video 1.5 s, text 0.1 s) most of the time is the poll schedule meeting the processing time;
// BENCH_META_FAST=1 sets every processing time to 0 to show the protocol's own cost.
//
//   node bench/meta-publish.ts                    10 posts per shape
//   BENCH_META_RUNS=30 BENCH_META_FAST=1 node bench/meta-publish.ts
import { createPlatformHttp } from '../src/platforms/http.ts';
import { createPlatformRegistry } from '../src/platforms/registry.ts';
import type { OutgoingPart, PlatformSession, PublishedPart } from '../src/platforms/types.ts';
import { startSandbox } from '../src/sandbox/server.ts';
import { jpeg, mediaSource, mp4 } from '../test/helpers/media-sources.ts';
import { partMemory } from '../src/platforms/part-memory.ts';

const RUNS = Number(process.env.BENCH_META_RUNS ?? 10);
const fast = process.env.BENCH_META_FAST === '1';
const settings = fast ? { containerImageMs: 0, containerVideoMs: 0, containerOtherMs: 0 } : {};
const sandbox = await startSandbox({ platforms: ['instagram', 'threads'], settings, rateLimitFactor: 1000 });
const registry = createPlatformRegistry();

async function sessionOf(platform: 'instagram' | 'threads'): Promise<PlatformSession> {
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl(platform), timeoutMs: 10_000 });
  const { account, credentials } = await registry
    .get(platform)!
    .connectSandbox(http, { username: `bench_${platform}` });
  return {
    connection: {
      id: 'bench',
      accountId: account.accountId,
      handle: account.handle,
      baseUrl: http.baseUrl,
      settings: {},
      sandbox: true,
    },
    credentials,
    http,
    clock: { now: () => new Date() },
  };
}

const sessions = { instagram: await sessionOf('instagram'), threads: await sessionOf('threads') };
const part = (platform: 'instagram' | 'threads', text: string, extra: Partial<OutgoingPart> = {}): OutgoingPart => ({
  index: 0,
  text,
  media: [],
  parent: null,
  root: null,
  key: registry.get(platform)!.newPartKey(new Date()),
  firstSentAt: new Date(),
  options: {},
  ...partMemory(),
  ...extra,
});
const image = () => mediaSource(jpeg(64, 64), 'image/jpeg', { width: 64, height: 64 });

const shapes: Array<{ name: string; platform: 'instagram' | 'threads'; run(i: number): Promise<unknown> }> = [
  {
    name: 'Instagram image',
    platform: 'instagram',
    run: async (i) =>
      registry.get('instagram')!.publish(
        sessions.instagram,
        part('instagram', `bench image ${i}`, {
          media: await registry.get('instagram')!.prepareMedia(sessions.instagram, [image()], {}),
        }),
      ),
  },
  {
    name: 'Instagram carousel (3 images)',
    platform: 'instagram',
    run: async (i) =>
      registry.get('instagram')!.publish(
        sessions.instagram,
        part('instagram', `bench carousel ${i}`, {
          media: await registry.get('instagram')!.prepareMedia(sessions.instagram, [image(), image(), image()], {}),
        }),
      ),
  },
  {
    name: 'Instagram Reel',
    platform: 'instagram',
    run: async (i) =>
      registry.get('instagram')!.publish(
        sessions.instagram,
        part('instagram', `bench reel ${i}`, {
          media: await registry
            .get('instagram')!
            .prepareMedia(sessions.instagram, [mediaSource(mp4(), 'video/mp4')], {}),
        }),
      ),
  },
  {
    name: 'Threads text',
    platform: 'threads',
    run: (i) => registry.get('threads')!.publish(sessions.threads, part('threads', `bench text ${i}`)),
  },
  {
    name: 'Threads image',
    platform: 'threads',
    run: async (i) =>
      registry.get('threads')!.publish(
        sessions.threads,
        part('threads', `bench image ${i}`, {
          media: await registry.get('threads')!.prepareMedia(sessions.threads, [image()], {}),
        }),
      ),
  },
  {
    name: 'Threads 3-part thread',
    platform: 'threads',
    run: async (i) => {
      let parent: PublishedPart | null = null;
      let root: PublishedPart | null = null;
      for (let n = 0; n < 3; n++) {
        parent = await registry
          .get('threads')!
          .publish(sessions.threads, part('threads', `bench thread ${i}/${n}`, { index: n, parent, root }));
        root ??= parent;
      }
    },
  },
];

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
console.log(
  `Meta container flow, ${RUNS} posts per shape, processing ${fast ? 'instant' : 'at the simulator defaults'}`,
);
console.log('| shape | median ms | p95 ms | max ms |');
console.log('|---|---|---|---|');
for (const shape of shapes) {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await shape.run(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(
    `| ${shape.name} | ${Math.round(pct(times, 50))} | ${Math.round(pct(times, 95))} | ${Math.round(times.at(-1)!)} |`,
  );
}
await sandbox.close();

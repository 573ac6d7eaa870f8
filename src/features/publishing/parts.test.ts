// The parts loop's adoption rules (parts.ts), with a scripted adapter and an in-memory store: a look-up never sees
// the platform ids other parts hold, a post the store refuses as taken is not adopted, and a duplicate rejection names
// the Herald post that holds the text. End to end through the simulators: test/publishing-reconcile.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../lib/clock.ts';
import {
  PlatformError,
  type OutgoingPart,
  type PlatformAdapter,
  type PlatformSession,
  type PublishedPart,
} from '../../platforms/types.ts';
import { createXAdapter } from '../../platforms/x/index.ts';
import { DuplicateOfPost, LostClaim, publishParts, type PartsStore } from './parts.ts';
import { targetError } from './policy.ts';
import type { PartMark, PartRow } from './target-parts.repo.ts';

const FIRST_SENT = new Date('2026-01-01T12:00:00Z');

const sendingRow = (): PartRow => ({
  position: 0,
  state: 'sending',
  idempotency_key: 'key-0',
  first_sent_at: FIRST_SENT,
  platform_post_id: null,
  url: null,
  ref: null,
  published_at: null,
  pending_refs: {},
});

/** A store whose platform ids of other parts are `taken`; it records what the engine asked. */
function store(options: { rows?: PartRow[]; taken?: string[]; holder?: string; lost?: boolean } = {}) {
  const taken = new Set(options.taken ?? []);
  const calls = {
    marked: [] as string[],
    keys: [] as string[],
    holderQueries: [] as unknown[],
    discarded: [] as number[],
  };
  const s: PartsStore = {
    rows: options.rows ?? [],
    async markSending(position, key) {
      calls.keys.push(key);
      return { ...sendingRow(), position, idempotency_key: key };
    },
    async markPublished(_position, part): Promise<PartMark> {
      calls.marked.push(part.id);
      if (options.lost) return 'lost_claim';
      return taken.has(part.id) ? 'taken' : 'published';
    },
    async remember() {
      return true;
    },
    async discard(position) {
      calls.discarded.push(position);
      return !options.lost;
    },
    async heldElsewhere() {
      return taken;
    },
    async holderOf(by) {
      calls.holderQueries.push(by);
      return options.holder;
    },
  };
  return { store: s, calls };
}

/** An adapter whose look-up returns `found` (ignoring `heldElsewhere` unless told) and whose publish answers `sent`. */
function adapter(script: {
  found?: (part: OutgoingPart) => PublishedPart | null;
  publish?: (part: OutgoingPart) => PublishedPart;
}) {
  const lookUps: OutgoingPart[] = [];
  const sends: OutgoingPart[] = [];
  // A real adapter's shape, its publishing calls scripted.
  const a: PlatformAdapter = {
    ...createXAdapter({ apiUrl: undefined, clientId: undefined, clientSecret: undefined }),
    newPartKey: () => 'new-key',
    prepareMedia: async () => [],
    async findPublished(_session, part) {
      lookUps.push(part);
      return script.found?.(part) ?? null;
    },
    async publish(_session, part) {
      sends.push(part);
      if (!script.publish) throw new Error('no publish scripted');
      return script.publish(part);
    },
  };
  return { adapter: a, lookUps, sends };
}

function run(s: PartsStore, a: PlatformAdapter, text = 'Same words') {
  return publishParts({
    store: s,
    workspaceId: '00000000-0000-0000-0000-000000000001',
    adapter: a,
    session,
    refresh: async () => {
      throw new Error('no refresh in these tests');
    },
    media: { sources: async () => [] },
    partMedia: [],
    altTexts: [],
    texts: [text],
    options: {},
    now: () => new Date(),
  });
}

const session: PlatformSession = {
  connection: { id: 'conn_1', accountId: '1', handle: 'herald', baseUrl: 'http://x.test', settings: {}, sandbox: true },
  credentials: { accessToken: 'token' },
  http: {
    baseUrl: 'http://x.test',
    request: async () => {
      throw new Error('no HTTP in these tests');
    },
  },
  clock: systemClock,
};

const post = (id: string): PublishedPart => ({ id, url: `https://example.test/${id}` });

test("a look-up is given the platform ids other parts hold, and the part's own key and first send", async () => {
  const { store: s } = store({ rows: [sendingRow()], taken: ['earlier'] });
  const a = adapter({ found: () => post('mine') });
  assert.equal((await run(s, a.adapter)).id, 'mine');
  const part = a.lookUps[0]!;
  assert.deepEqual([...(part.heldElsewhere ?? [])], ['earlier']);
  assert.equal(part.key, 'key-0');
  assert.equal(part.firstSentAt, FIRST_SENT);
  assert.equal(part.mediaCount, 0);
});

test('a post the store refuses as taken is not adopted: the engine looks again, then re-sends with the same key', async () => {
  const { store: s, calls } = store({ rows: [sendingRow()], taken: ['earlier'] });
  const a = adapter({ found: () => post('earlier'), publish: () => post('mine') });
  assert.equal((await run(s, a.adapter)).id, 'mine');
  assert.deepEqual(calls.marked, ['earlier', 'earlier', 'mine'], 'refused twice, then the re-sent post recorded');
  assert.equal(a.sends.length, 1);
  assert.equal(a.sends[0]!.key, 'key-0', 'the re-send keeps the part key');
});

test('a duplicate rejection is reported as PLATFORM_DUPLICATE naming the Herald post that holds the text', async () => {
  const { store: s, calls } = store({ holder: 'post_earlier' });
  const a = adapter({
    publish: () => {
      throw new PlatformError('invalid_content', 'PLATFORM_DUPLICATE', 'X answered 403: duplicate content.', {
        platformStatus: 403,
      });
    },
  });
  await assert.rejects(run(s, a.adapter, 'Same words'), (error: unknown) => {
    assert.ok(error instanceof DuplicateOfPost);
    assert.equal(error.code, 'PLATFORM_DUPLICATE');
    assert.equal(error.platformStatus, 403);
    assert.equal(error.postId, 'post_earlier');
    assert.match(error.message, /^X answered 403: duplicate content\. \(Herald post post_earlier already holds/);
    assert.deepEqual(targetError(error).duplicate_of, { post_id: 'post_earlier' });
    return true;
  });
  assert.deepEqual(calls.holderQueries, [{ text: 'Same words' }]);
  assert.equal(a.lookUps.length, 0, 'a first send refused as a duplicate is not looked up');
});

test('a re-send refused as a duplicate looks up once more and adopts only what is not taken', async () => {
  const { store: s } = store({ rows: [sendingRow()], taken: ['earlier'], holder: 'post_earlier' });
  const a = adapter({
    found: (part) => (part.heldElsewhere?.has('earlier') ? null : post('earlier')),
    publish: () => {
      throw new PlatformError('invalid_content', 'PLATFORM_DUPLICATE', 'duplicate');
    },
  });
  await assert.rejects(run(s, a.adapter), /Herald post post_earlier already holds this text/);
  assert.equal(a.lookUps.length, 2, 'before the re-send and after its duplicate answer');
});

test('a platform answer naming a post another part holds fails PLATFORM_DUPLICATE, not a second record', async () => {
  const { store: s, calls } = store({ taken: ['earlier'], holder: 'post_earlier' });
  const a = adapter({ publish: () => post('earlier') });
  await assert.rejects(run(s, a.adapter), (error: unknown) => {
    assert.ok(error instanceof PlatformError);
    assert.equal(error.code, 'PLATFORM_DUPLICATE');
    assert.match(error.message, /post earlier.*Herald post post_earlier already holds platform post earlier/);
    return true;
  });
  assert.deepEqual(calls.holderQueries, [{ platformPostId: 'earlier' }]);
});

test('an unknown outcome reconciled to a taken post is not adopted; the attempt ends with the unknown outcome', async () => {
  const { store: s } = store({ taken: ['earlier'] });
  const a = adapter({
    found: () => post('earlier'),
    publish: () => {
      throw new PlatformError('unknown_outcome', 'PLATFORM_UNKNOWN_OUTCOME', 'the answer was lost');
    },
  });
  await assert.rejects(
    run(s, a.adapter),
    (error: unknown) => error instanceof PlatformError && error.kind === 'unknown_outcome',
  );
});

test('a lost claim while adopting stops the attempt', async () => {
  const { store: s } = store({ rows: [sendingRow()], lost: true });
  const a = adapter({ found: () => post('mine') });
  await assert.rejects(run(s, a.adapter), LostClaim);
});

describe('a part whose only send the platform refused is forgotten, so the next attempt sends it afresh', () => {
  const refusals = [
    new PlatformError('invalid_content', 'PLATFORM_DUPLICATE', 'duplicate'),
    new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', 'too long'),
    new PlatformError('media_rejected', 'PLATFORM_MEDIA_REJECTED', 'bad image'),
    new PlatformError('permanent', 'PLATFORM_PERMISSION_DENIED', 'no scope'),
    new PlatformError('rate_limited', 'PLATFORM_RATE_LIMITED', '429', { retryAfterMs: 1000 }),
  ];
  for (const refusal of refusals) {
    test(`${refusal.code}: the part's row is deleted`, async () => {
      const { store: s, calls } = store();
      const a = adapter({
        publish: () => {
          throw refusal;
        },
      });
      await assert.rejects(run(s, a.adapter), (error: unknown) => error instanceof PlatformError);
      assert.deepEqual(calls.discarded, [0]);
      assert.equal(a.lookUps.length, 0);
    });
  }

  const unanswered = [
    new PlatformError('unknown_outcome', 'PLATFORM_UNKNOWN_OUTCOME', 'timeout'),
    new PlatformError('transient', 'PLATFORM_UNAVAILABLE', '502 from a gateway, perhaps after the post was made'),
    new PlatformError('transient', 'PLATFORM_NETWORK_ERROR', 'aborted after the request was written'),
  ];
  for (const failure of unanswered) {
    test(`${failure.code}: the part stays \`sending\`, to be looked up before any re-send`, async () => {
      const { store: s, calls } = store();
      const a = adapter({
        found: () => null,
        publish: () => {
          throw failure;
        },
      });
      await assert.rejects(run(s, a.adapter), (error: unknown) => error instanceof PlatformError);
      assert.deepEqual(calls.discarded, []);
    });
  }

  test('a re-send refused keeps the row: the refusal says nothing of the earlier, unanswered send', async () => {
    const { store: s, calls } = store({ rows: [sendingRow()] });
    const a = adapter({
      found: () => null,
      publish: () => {
        throw new PlatformError('invalid_content', 'PLATFORM_DUPLICATE', 'duplicate');
      },
    });
    await assert.rejects(run(s, a.adapter), (error: unknown) => error instanceof PlatformError);
    assert.deepEqual(calls.discarded, []);
  });

  test('a lost claim while forgetting the part stops the attempt', async () => {
    const { store: s } = store({ lost: true });
    const a = adapter({
      publish: () => {
        throw new PlatformError('permanent', 'PLATFORM_REJECTED', 'no');
      },
    });
    await assert.rejects(run(s, a.adapter), LostClaim);
  });
});

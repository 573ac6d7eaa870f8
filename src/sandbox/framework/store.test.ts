// The sandbox store's contract, run against both stores: what a simulator relies on must hold the same in memory
// (standalone rigs) and in PostgreSQL (Herald's mount).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { pgStore } from './store-pg.ts';
import { decode, encode, memoryStore, type SandboxStore } from './store.ts';

test('the codec keeps bigints, bytes, maps and sets', () => {
  const doc = {
    id: 7_100_000_000_000_000_001n,
    bytes: Buffer.from([0, 1, 255]),
    admins: new Set(['a', 'b']),
    parts: new Map([[0, { data: Buffer.from('x') }]]),
    nested: [{ n: 1, s: 'two', none: null }],
  };
  const back = decode<typeof doc>(encode(doc));
  assert.equal(back.id, doc.id);
  assert.deepEqual(back.bytes, doc.bytes);
  assert.deepEqual(back.admins, doc.admins);
  assert.deepEqual(back.parts.get(0)?.data, Buffer.from('x'));
  assert.deepEqual(back.nested, doc.nested);
  // A field that merely looks like a tag is left alone when it is not one.
  assert.deepEqual(decode(encode({ $bigint: 5 })), { $bigint: 5 });
  // U+0000, which PostgreSQL's jsonb refuses, survives in a form it accepts.
  assert.ok(!encode({ text: 'a\u0000b' }).includes('\\u0000'));
  assert.equal(decode<{ text: string }>(encode({ text: 'a\u0000b' })).text, 'a\u0000b');
});

function contract(name: string, open: () => SandboxStore) {
  describe(name, () => {
    test('documents are copies: a change is kept only once written', async () => {
      const store = open();
      const doc = { id: 'p1', text: 'hello', likes: 0 };
      await store.put('post', 'p1', doc, 'alice');
      doc.likes = 5;
      assert.equal((await store.get<typeof doc>('post', 'p1'))?.likes, 0);
      const got = (await store.get<typeof doc>('post', 'p1'))!;
      got.likes = 3;
      assert.equal((await store.get<typeof doc>('post', 'p1'))?.likes, 0);
      await store.put('post', 'p1', got, 'alice');
      assert.equal((await store.get<typeof doc>('post', 'p1'))?.likes, 3);
      assert.equal(await store.get('post', 'missing'), undefined);
    });

    test('a text with U+0000 is stored and read back', async () => {
      const store = open();
      await store.put('post', 'nul', { text: 'before\u0000after' });
      assert.equal((await store.get<{ text: string }>('post', 'nul'))?.text, 'before\u0000after');
    });

    test('insert claims an id once', async () => {
      const store = open();
      assert.equal(await store.insert('code', 'c1', { used: true }), true);
      assert.equal(await store.insert('code', 'c1', { used: false }), false);
      assert.deepEqual(await store.get('code', 'c1'), { used: true });
    });

    test('update changes atomically; concurrent increments are all kept', async () => {
      const store = open();
      await store.put('counter', 'c', { n: 0 });
      await Promise.all(
        Array.from({ length: 20 }, () => store.update<{ n: number }>('counter', 'c', (d) => ({ n: d.n + 1 }))),
      );
      assert.deepEqual(await store.get('counter', 'c'), { n: 20 });
      assert.deepEqual(
        await store.update<{ n: number }>('counter', 'c', () => undefined),
        { n: 20 },
        'undefined leaves it as it is',
      );
      assert.equal(await store.update('counter', 'absent', () => ({ n: 1 })), undefined);
    });

    test('list narrows by owner and by contained fields, newest first', async () => {
      const store = open();
      await store.put('post', '1', { text: 'a', media: ['m1'], replyTo: null }, 'alice');
      await store.put('post', '2', { text: 'b', media: [], replyTo: '1' }, 'alice');
      await store.put('post', '3', { text: 'a', media: [], replyTo: null }, 'bob');
      const ids = (docs: Array<{ text: string }>) => docs.map((d) => d.text);
      assert.deepEqual(ids(await store.list('post', { owner: 'alice' })), ['b', 'a']);
      assert.deepEqual(ids(await store.list('post', { owner: 'alice', ascending: true })), ['a', 'b']);
      assert.equal((await store.list('post', { match: { text: 'a' } })).length, 2);
      assert.equal((await store.list('post', { match: { text: 'a', media: ['m1'] } })).length, 1);
      assert.equal((await store.list('post', { match: { replyTo: '1' } })).length, 1);
      assert.equal((await store.list('post', { limit: 1 })).length, 1);
      // Pages after a known document, both ways; an unknown cursor matches nothing.
      assert.deepEqual(ids(await store.list('post', { beforeId: '2' })), ['a']);
      assert.deepEqual(ids(await store.list('post', { afterId: '1', owner: 'alice' })), ['b']);
      assert.deepEqual(ids(await store.list('post', { afterId: '1', limit: 1, ascending: true })), ['b']);
      assert.deepEqual(await store.list('post', { beforeId: 'nope' }), []);
      // A replaced document keeps its place in the order.
      await store.put('post', '1', { text: 'a2', media: [], replyTo: null }, 'alice');
      assert.deepEqual(ids(await store.list('post', { owner: 'alice' })), ['b', 'a2']);
    });

    test('counters never repeat, a clear included; bytes round-trip; clear forgets documents', async () => {
      const store = open();
      assert.equal(await store.next('share', 100n), 100n);
      assert.equal(await store.next('share', 100n), 101n);
      await store.putBytes('m1', Buffer.from('image bytes'));
      assert.deepEqual(await store.getBytes('m1'), Buffer.from('image bytes'));
      await store.put('post', 'x', { a: 1 });
      await store.clear();
      assert.equal(await store.get('post', 'x'), undefined);
      assert.equal(await store.getBytes('m1'), undefined);
      assert.equal(await store.next('share', 100n), 102n);
      assert.equal(await store.delete('post', 'x'), false);
      await store.put('post', 'y', { a: 1 });
      assert.equal(await store.delete('post', 'y'), true);
    });
  });
}

contract('in memory', () => memoryStore());

describe('in PostgreSQL', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let n = 0;
  before(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.connectionString, max: 4 });
    // An idle client whose server goes away must not crash the file (as src/db/pool.ts does for Herald).
    pool.on('error', () => {});
  });
  after(async () => {
    await pool.end();
    await db.drop();
  });
  // Each test its own simulator name: the stores share the schema, never each other's rows.
  contract('the same contract', () => pgStore(pool, `sim${++n}`));

  test('two stores over one pool are two simulators', async () => {
    const a = pgStore(pool, 'x');
    const b = pgStore(pool, 'linkedin');
    await a.put('post', '1', { text: 'x' });
    assert.equal(await b.get('post', '1'), undefined);
    await b.clear();
    assert.deepEqual(await a.get('post', '1'), { text: 'x' });
  });
});

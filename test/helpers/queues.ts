// Shared by the queues tests (queues, queues-moves): slots in UTC, and the queue and post requests bound to the
// file's app and key (both set in its `before`).
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';

export const UTC = (day: number, time: string) => ({ day_of_week: day, time, timezone: 'UTC' });
export const daily = (...times: string[]) => [0, 1, 2, 3, 4, 5, 6].flatMap((d) => times.map((time) => UTC(d, time)));

/** The request is a 422 whose details name `expected` among its rules. */
export function rule(res: { statusCode: number; body: string; json(): unknown }, expected: string) {
  assert.equal(res.statusCode, 422, res.body);
  const rules = (res.json() as { error: { details: Array<{ rule: string }> } }).error.details.map((d) => d.rule);
  assert.ok(rules.includes(expected), `expected rule ${expected}, got ${rules.join(', ')}`);
}

export function queueRequests(context: () => { t: TestApp; key: string }) {
  let n = 0;
  const requests = {
    /** A workspace of its own, for a test that needs its brand's queues or connections' posts to itself. */
    async freshKey() {
      const { t } = context();
      const ws = await t.workspace();
      return t.key({ workspaceIds: [ws.workspaceId] });
    },

    async createQueue(body: Record<string, unknown>, k = context().key) {
      const res = await context().t.inject({
        method: 'POST',
        url: '/v1/queues',
        key: k,
        payload: { name: `q ${++n}`, ...body },
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().data as { id: string; slots: unknown[]; gap_policy: string };
    },

    async removeQueue(id: string) {
      const { t, key } = context();
      const res = await t.inject({ method: 'DELETE', url: `/v1/queues/${id}`, key });
      assert.equal(res.statusCode, 200, res.body);
    },

    async queued(body: Record<string, unknown>, k = context().key) {
      return context().t.inject({
        method: 'POST',
        url: '/v1/posts',
        key: k,
        payload: { content: `queued ${++n}`, platforms: ['x'], queue: 'next', ...body },
      });
    },

    /** Adds a post to this queue (named, so a queue another test left behind changes nothing). */
    async add(queueId: string, body: Record<string, unknown> = {}, k = context().key) {
      const res = await requests.queued({ queue_id: queueId, ...body }, k);
      assert.equal(res.statusCode, 201, res.body);
      return res.json().data.post as { id: string; schedule_at: string; queue_id: string; queue_slot: string };
    },

    async getPost(id: string) {
      const { t, key } = context();
      const res = await t.inject({ url: `/v1/posts/${id}`, key });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data as {
        schedule_at: string;
        queue_slot: string | null;
        queue_id: string | null;
        status: string;
      };
    },
  };
  return requests;
}

// Shared by the end-to-end publishing tests (publishing-flow, publishing-faults, publishing-facebook): the app's
// settings, the post as the API returns it, and creating a post then waiting for it to settle on the simulators.
import assert from 'node:assert/strict';
import type { RunningSandbox } from '../../src/sandbox/server.ts';
import type { TestApp } from './app.ts';
import { pollFor } from './poll.ts';

/** Short platform timeout and overdue threshold, so hangs and lost jobs are seen within a test. */
export const PUBLISHING_ENV = { HERALD_PLATFORM_TIMEOUT_MS: '1500', HERALD_OVERDUE_AFTER_MS: '1500' };

export type Post = {
  id: string;
  status: string;
  published_at: string | null;
  targets: Array<{
    id: string;
    platform: string;
    status: string;
    url: string | null;
    platform_post_id: string | null;
    attempts: Array<{ outcome: string | null; error_code: string | null }>;
    error: null | {
      code: string;
      message: string;
      category: string;
      retryable: boolean;
      platform_status: number | null;
      platform_response: string | null;
    };
  }>;
};

const FINAL = ['published', 'partially_published', 'failed'];

/** The file's app, key and sandbox are read when called (all are set in `before`). */
export function publishingRequests(context: () => { t: TestApp; key: string; sandbox: RunningSandbox }) {
  async function create(body: Record<string, unknown>): Promise<Post> {
    const { t, key } = context();
    const res = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data.post;
  }

  async function get(id: string): Promise<Post> {
    const { t, key } = context();
    return (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
  }

  /** Polls the post until it is published, partially published or failed. */
  function settled(id: string, label: string, ceilingMs = 30_000): Promise<Post> {
    return pollFor(
      label,
      async () => {
        const post = await get(id);
        return FINAL.includes(post.status) ? post : undefined;
      },
      ceilingMs,
    );
  }

  /** The live copies of `text` the platform's simulator holds. */
  const held = async (platform: 'x' | 'bluesky' | 'mastodon' | 'linkedin', text: string) =>
    (await context().sandbox.simulator(platform).posts()).filter((p) => p.text === text && !p.deleted);

  return { create, settled, held };
}

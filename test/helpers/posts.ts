// Shared by the posts API tests (posts-create, posts-lifecycle): a schedule time in the future and a POST /v1/posts
// bound to the file's app and key.
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.ts';

/** An ISO time `minutes` from now. */
export const future = (minutes = 60) => new Date(Date.now() + minutes * 60_000).toISOString();

/** `create(body)`: POST /v1/posts with the key of the file's app, read when called (both are set in `before`). */
export function postRequests(context: () => { t: TestApp; key: string }) {
  return {
    async create(body: Record<string, unknown>): Promise<LightMyRequestResponse> {
      const { t, key } = context();
      return t.inject({ method: 'POST', url: '/v1/posts', key, payload: body });
    },
  };
}

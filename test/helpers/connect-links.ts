// Shared by the connect-link tests (connect-links-oauth, -hosted-pages, -live, -cli): the client's redirect_url,
// the OAuth platforms a sandbox simulates, creating a link and taking its first hop.
import assert from 'node:assert/strict';
import type { PlatformName } from '../../src/platforms/limits.ts';
import type { RunningSandbox } from '../../src/sandbox/server.ts';
import type { TestApp } from './app.ts';
import type { createBrowser } from './connect-browser.ts';

export const CLIENT = 'https://client.example/connected';

/** The registered platforms with `oauth` whose simulator the sandbox runs. */
export function oauthPlatformsOf(t: TestApp, sandbox: RunningSandbox): PlatformName[] {
  return t.container.platforms.available().filter((p) => t.container.platforms.get(p)?.oauth && sandbox.simulator(p));
}

/** The link's first hop: Herald's redirect to the platform's authorize URL (the binding cookie is now set). */
export async function toAuthorize(browser: ReturnType<typeof createBrowser>, url: string): Promise<URL> {
  const first = await browser.request('GET', url);
  assert.equal(first.status, 302, first.text);
  return new URL(first.location!);
}

/** The file's app and key are read when a link is created (both are set in `before`). */
export function connectLinkRequests(context: () => { t: TestApp; key: string }) {
  async function createLink(
    platform: string,
    extra: Record<string, unknown> = {},
    k = context().key,
    workspaceId = context().t.owner.workspaceId,
  ): Promise<{ id: string; url: string }> {
    const res = await context().t.inject({
      method: 'POST',
      url: '/v1/connections/connect-links',
      key: k,
      headers: { 'x-herald-workspace-id': workspaceId },
      payload: { platform, redirect_url: CLIENT, ...extra },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data;
  }

  return { createLink };
}

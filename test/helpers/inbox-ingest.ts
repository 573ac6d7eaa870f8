// Shared by the inbox ingestion tests: the rows ingested for a connection, the simulated account behind one, and
// the passes, injections and reply dependencies of one platform's inbox tests.
import assert from 'node:assert/strict';
import { findItem } from '../../src/features/inbox/inbox.repo.ts';
import { ingestDue, type IngestDeps } from '../../src/features/inbox/ingest.ts';
import type { PlatformReplyDeps } from '../../src/features/inbox/platform-reply.ts';
import type { PlatformName } from '../../src/platforms/limits.ts';
import type { InjectionKind } from '../../src/sandbox/framework/inbox.ts';
import type { RunningSandbox } from '../../src/sandbox/server.ts';
import type { TestApp } from './app.ts';

export interface IngestedRow {
  id: string;
  workspace_id: string;
  kind: string;
  post_id: string | null;
  platform_post_id: string | null;
  platform_item_id: string;
  thread_id: string;
  parent_id: string | null;
  author: { platform_user_id: string; username: string | null };
  text: string;
  status: string;
  reply_window_ends_at: Date | null;
  from_account: boolean;
}

export async function inboxRows(t: TestApp, connectionId: string): Promise<IngestedRow[]> {
  const { rows } = await t.container.pool.query<IngestedRow>(
    `SELECT * FROM inbox_items WHERE connection_id = $1 ORDER BY received_at, platform_item_id`,
    [connectionId],
  );
  return rows;
}

export async function handleOf(t: TestApp, connectionId: string): Promise<string> {
  const { rows } = await t.container.pool.query<{ handle: string }>(`SELECT handle FROM connections WHERE id = $1`, [
    connectionId,
  ]);
  return rows[0]!.handle.replace(/^@/, '').replace(/@.*$/, '');
}

/**
 * One platform's inbox in a test: `ingest` runs a pass ten minutes after the last (so every source is due),
 * `injectOne` makes the simulator's other accounts write on the connection's account, and `ingested` runs a pass
 * and answers the item a platform id became.
 */
export function inboxPoller(platform: PlatformName, app: () => { t: TestApp; sandbox: RunningSandbox }) {
  let passes = 0;
  const ingest = (maxPages = 10) => {
    const c = app().t.container;
    const deps: IngestDeps = {
      pool: c.pool,
      access: c.platformAccess,
      logger: c.logger,
      clock: c.clock,
      pollSeconds: 60,
      batchSize: 500,
      maxPages,
    };
    return ingestDue(deps, { now: new Date(Date.now() + ++passes * 10 * 60_000) });
  };
  const replyDeps = (): PlatformReplyDeps => {
    const c = app().t.container;
    return { pool: c.pool, access: c.platformAccess, logger: c.logger, clock: c.clock };
  };
  const connection = () => app().t.connections[platform]!;
  const sim = () => app().sandbox.simulator(platform);
  const injectOne = async (kind: InjectionKind, extra: Record<string, string> = {}) => {
    const injected = await sim().inject({ account: await handleOf(app().t, connection()), kind, ...extra });
    assert.ok('ids' in injected, JSON.stringify(injected));
    return injected.ids;
  };
  const ingested = async (uri: string) => {
    await ingest();
    const { t } = app();
    const row = (await inboxRows(t, connection())).find((r) => r.platform_item_id === uri);
    assert.ok(row, `ingested ${uri}`);
    return (await findItem(t.container.pool, t.owner.workspaceId, row.id))!;
  };
  return { ingest, replyDeps, connection, sim, injectOne, ingested };
}

// Shared by the approvals tests: changing the workspace's approval policy over the API (with the version it is at),
// and the service context a run (an automation, an import) writes in.
import assert from 'node:assert/strict';
import type { ServiceContext } from '../../src/app/context.ts';
import type { Queryable } from '../../src/db/pool.ts';
import type { TestApp } from './app.ts';

/** PATCH /v1/approvals/policy with `patch` at the current version; asserts a 200 and returns the policy. */
export async function setApprovalPolicy(
  t: TestApp,
  key: string,
  patch: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const current = (await t.inject({ url: '/v1/approvals/policy', key })).json().data;
  const res = await t.inject({
    method: 'PATCH',
    url: '/v1/approvals/policy',
    key,
    payload: { version: current.version, ...patch },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

/** The owner's workspace and default brand, as a feature running for `userId` through `via` sees them. */
export function runContext(t: TestApp, db: Queryable, userId: string, via: ServiceContext['via']): ServiceContext {
  return {
    db,
    workspaceId: t.owner.workspaceId,
    workspaceMode: 'test',
    brandId: t.owner.brandId,
    brandFromHeader: false,
    allowedBrandIds: null,
    userId,
    via,
  };
}

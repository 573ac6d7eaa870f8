// Approvals (docs/approvals.md): the policy (read, change), the queue's items and batches (read, list), and the
// decisions (approvals.decide.ts). Every write commits in the caller's transaction.
import type { ServiceContext } from '../../app/context.ts';
import { brandScope } from '../../app/brand-scope.ts';
import { decodeCursor, keysetPage } from '../../app/cursor.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import { findBrand } from '../workspaces/workspaces.repo.ts';
import { roleMay } from '../workspaces/roles.ts';
import { parseTime } from '../posts/posts.writing.ts';
import { callerRole } from './approvals.gate.ts';
import type { BrandOverride, PolicyFields } from './approvals.policy.ts';
import * as repo from './approvals.repo.ts';
import type { ItemStatus } from './approvals.repo.ts';
import type { ListBatchesQuery, ListItemsQuery, UpdatePolicyBody } from './approvals.schemas.ts';
import { createApprovalDecisions, visibleItem, type DecisionDeps } from './approvals.decide.ts';
import { renderBatch, renderItem, renderPolicy } from './approvals.view.ts';

export type ApprovalsDeps = DecisionDeps;

export function createApprovalsService(deps: ApprovalsDeps) {
  return {
    async getPolicy(ctx: ServiceContext) {
      return renderPolicy(await repo.findPolicy(ctx.db, ctx.workspaceId));
    },

    /** PATCH /approvals/policy: owners and admins, with the version they read. */
    async updatePolicy(ctx: ServiceContext, body: UpdatePolicyBody) {
      const role = await callerRole(ctx);
      if (!roleMay(role, 'approvals:policy'))
        throw new AppError(
          'PUBLIC_API_SCOPE_FORBIDDEN',
          `Changing the approval policy is for owners and admins; you are ${role === 'member' ? 'a member' : role}.`,
        );
      const current = await repo.findPolicy(ctx.db, ctx.workspaceId);
      const stale = () =>
        new AppError(
          'PUBLIC_API_VERSION_CONFLICT',
          `The policy is at version ${current.version}, not ${body.version}: read it again and reapply your change.`,
          { details: [{ path: '/version', rule: 'stale_version', message: `current version is ${current.version}` }] },
        );
      if (body.version !== current.version) throw stale();
      const { version, brand_overrides: overridePatch, ...patch } = body;
      const overrides: Record<string, BrandOverride> = { ...current.brand_overrides };
      const issues = [];
      for (const [brandId, override] of Object.entries(overridePatch ?? {})) {
        if (override === null) {
          delete overrides[brandId];
          continue;
        }
        if (!(await findBrand(ctx.db, ctx.workspaceId, brandId)))
          issues.push({
            platform: null,
            rule: 'unknown_brand',
            path: `/brand_overrides/${brandId}`,
            message: `No brand ${brandId} in this workspace.`,
          });
        overrides[brandId] = { ...overrides[brandId], ...override };
      }
      if (issues.length > 0) throw validationFailed(issues);
      const { brand_overrides: _o, version: _v, updated_at: _u, ...fields } = current;
      const next: PolicyFields = { ...fields, ...(patch as Partial<PolicyFields>) };
      const saved = await repo.savePolicy(ctx.db, ctx.workspaceId, version, { ...next, brand_overrides: overrides });
      if (!saved) throw stale();
      return renderPolicy(saved);
    },

    async getItem(ctx: ServiceContext, id: string) {
      const item = await visibleItem(ctx, id);
      return renderItem(item, await repo.listHistory(ctx.db, ctx.workspaceId, id));
    },

    async listItems(ctx: ServiceContext, query: ListItemsQuery) {
      const limit = query.limit ?? 20;
      const time = (value: string | undefined, path: string) =>
        value === undefined ? undefined : parseTime(value, path, 'PUBLIC_API_QUERY_INVALID');
      const filters: repo.ItemFilters = {
        statuses: query.status ? ([...new Set(query.status)].toSorted() as ItemStatus[]) : undefined,
        kind: query.kind,
        sources: query.source ? [...new Set(query.source)].toSorted() : undefined,
        brandIds: brandScope(ctx, query.brand_id) ?? undefined,
        platform: query.platform,
        createdFrom: time(query.created_from, '/created_from'),
        createdTo: time(query.created_to, '/created_to'),
        batchId: query.batch_id,
      };
      const after = query.cursor ? decodeCursor(query.cursor, filters) : undefined;
      const rows = await repo.listItems(ctx.db, ctx.workspaceId, filters, after, limit + 1);
      const { page, ...more } = keysetPage(rows, limit, filters, (row) => row.requested_at);
      return { items: page.map((row) => renderItem(row)), ...more };
    },

    async getBatch(ctx: ServiceContext, id: string) {
      const batch = await repo.findBatch(ctx.db, ctx.workspaceId, id);
      if (!batch) throw notFound('approval batch');
      const counts = await repo.batchCounts(ctx.db, ctx.workspaceId, [id]);
      return renderBatch(batch, counts.get(id) ?? {});
    },

    async listBatches(ctx: ServiceContext, query: ListBatchesQuery) {
      const limit = query.limit ?? 20;
      const binding = { status: query.status };
      const after = query.cursor ? decodeCursor(query.cursor, binding) : undefined;
      const rows = await repo.listBatches(ctx.db, ctx.workspaceId, { status: query.status }, after, limit + 1);
      const { page, ...more } = keysetPage(rows, limit, binding, (row) => row.created_at);
      const counts = await repo.batchCounts(
        ctx.db,
        ctx.workspaceId,
        page.map((b) => b.id),
      );
      return { items: page.map((b) => renderBatch(b, counts.get(b.id) ?? {})), ...more };
    },

    ...createApprovalDecisions(deps),
  };
}

export type ApprovalsService = ReturnType<typeof createApprovalsService>;

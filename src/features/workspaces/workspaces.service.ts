// Workspaces (each made with its default brand: src/features/brands) and the first-start bootstrap (owner account + the test-mode "Sandbox" workspace).
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import { newId, newUuid } from '../../lib/ids.ts';
import * as users from '../users/users.repo.ts';
import { insertNamedBrand } from '../brands/brands.service.ts';
import type { BrandRow } from '../brands/brands.repo.ts';
import * as repo from './workspaces.repo.ts';
import type { WorkspaceRow } from './workspaces.repo.ts';
import type { WorkspaceMode } from '../../app/context.ts';

// Serialises bootstraps of concurrent first starts (a different number from the migration lock).
const BOOTSTRAP_LOCK = 7_245_812_002;

export interface CreatedWorkspace {
  workspace: WorkspaceRow;
  brand: BrandRow;
}

/** A workspace with its default brand, owned by `ownerUserId`. Mode is fixed for the workspace's life. */
export async function createWorkspace(
  db: Queryable,
  input: { name: string; mode: WorkspaceMode; ownerUserId: string },
): Promise<CreatedWorkspace> {
  const id = newUuid();
  await repo.insertWorkspace(db, { id, name: input.name, mode: input.mode });
  await repo.addMembership(db, id, input.ownerUserId, 'owner');
  const brand = await insertNamedBrand(db, id, input.name, true);
  const workspace = (await repo.findWorkspace(db, id))!;
  return { workspace, brand };
}

/** A brand with only a name (bootstrap, tests, benchmarks); the API's POST /v1/brands is brands.service. */
export async function createBrand(db: Queryable, workspaceId: string, name: string): Promise<BrandRow> {
  return insertNamedBrand(db, workspaceId, name, false);
}

export interface Bootstrap {
  userId: string;
  email: string;
  workspaceId: string;
  brandId: string;
  /** True when this call created the Sandbox workspace (the first start). */
  created: boolean;
}

/**
 * Ensures the owner account and the Sandbox workspace exist; idempotent and safe under concurrent starts.
 * `email` is used only when the owner is created.
 */
export async function ensureOwnerAndSandbox(pool: Pool, email: string): Promise<Bootstrap> {
  return withTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
    let userId = await repo.getSetting(tx, 'owner_user_id');
    if (!userId) {
      const existing = await users.findUserByEmail(tx, email);
      userId = existing?.id ?? newId('user');
      if (!existing) await users.insertUser(tx, userId, email);
      await repo.setSetting(tx, 'owner_user_id', userId);
    }
    const owner = (await users.findUser(tx, userId))!;
    const sandboxId = await repo.getSetting(tx, 'sandbox_workspace_id');
    const sandbox = sandboxId ? await repo.findWorkspace(tx, sandboxId) : undefined;
    if (sandbox?.default_brand_id) {
      return { userId, email: owner.email, workspaceId: sandbox.id, brandId: sandbox.default_brand_id, created: false };
    }
    const made = await createWorkspace(tx, { name: 'Sandbox', mode: 'test', ownerUserId: userId });
    await repo.setSetting(tx, 'sandbox_workspace_id', made.workspace.id);
    return { userId, email: owner.email, workspaceId: made.workspace.id, brandId: made.brand.id, created: true };
  });
}

export async function ownerUserId(db: Queryable): Promise<string | undefined> {
  return repo.getSetting(db, 'owner_user_id');
}

/** The public representation of a workspace (`GET /v1/workspaces`). */
export function workspaceJson(w: WorkspaceRow): Record<string, unknown> {
  return {
    id: w.id,
    object: 'workspace',
    name: w.name,
    mode: w.mode,
    default_brand_id: w.default_brand_id,
    created_at: w.created_at.toISOString(),
  };
}

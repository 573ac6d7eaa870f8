// What a feature service knows of its caller, whichever face (REST, MCP, CLI, worker) made the call.
import type { Queryable } from '../db/pool.ts';

/** What feature services need to know about the caller, independent of HTTP. */
export interface ServiceContext {
  db: Queryable;
  workspaceId: string;
  workspaceMode: WorkspaceMode;
  /** The brand the request applies to: the header's, else the workspace's default; null when the key may not
   *  use the default brand and sent no header (lists then cover the key's brands; creating needs a brand). */
  brandId: string | null;
  /** True when the caller named the brand in the header (a body `brand_id` must then match it). */
  brandFromHeader: boolean;
  /** Brands the key is limited to (null: all). */
  allowedBrandIds: readonly string[] | null;
  userId: string;
  /** The surface that made the call: a post's `created_via`, and the source the approval policy is read for. */
  via: 'api' | 'mcp' | 'dashboard' | 'cli' | 'automation' | 'repurpose' | 'queue_import';
}

/**
 * A live workspace reaches real platforms; a test workspace holds only sandbox connections (docs/api.md "Test mode").
 */
export type WorkspaceMode = 'live' | 'test';

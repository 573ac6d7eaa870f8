// In-memory state of the Mastodon simulator: OAuth apps, accounts, statuses, media attachments, and the Idempotency-Key
// memory (one hour per account, docs/platforms/mastodon.md "Idempotency"); and the context every route handler is
// given.
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';

export interface MastoAccount {
  id: string;
  username: string;
  displayName: string;
}

export interface MastoStatus {
  id: string;
  accountId: string;
  text: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: string;
  language: string | null;
  inReplyToId: string | null;
  mediaIds: string[];
  createdAt: number;
  deleted: boolean;
}

export interface MastoMedia {
  id: string;
  accountId: string;
  type: 'image' | 'gifv' | 'video';
  contentType: string;
  size: number;
  description: string | null;
  readyAt: number;
  failed: boolean;
  attached: boolean;
}

export interface MastoState {
  apps: Map<string, { clientId: string; clientSecret: string; redirectUris: string[]; scopes: string }>;
  accounts: Map<string, MastoAccount>;
  statuses: Map<string, MastoStatus>;
  media: Map<string, MastoMedia>;
  /** `${accountId}:${key}` → status id and when the key was first used. */
  idempotency: Map<string, { statusId: string; at: number }>;
  spentCodes: Set<string>;
  revoked: Set<string>;
}

export function createMastoState(): MastoState {
  return {
    apps: new Map(),
    accounts: new Map(),
    statuses: new Map(),
    media: new Map(),
    idempotency: new Map(),
    spentCodes: new Set(),
    revoked: new Set(),
  };
}

/** What every route handler works with: the kit, the live state (reset swaps it) and Mastodon's error body. */
export interface MastoContext {
  kit: SimulatorKit;
  state: MastoState;
  errorReply: PlatformSimulator['errorReply'];
  /** Where the simulator is mounted (`/sandbox/mastodon` in Herald), for the URLs it hands out. */
  prefix: string;
}

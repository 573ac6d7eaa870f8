// The Threads simulator's memory: accounts, media containers, published threads (posts and replies), the
// publish and delete times behind the rolling 24-hour quotas, and spent authorization codes.
import { createContainerStore, graphIdFactory, type ContainerStore } from '../meta/graph.ts';

/** The span of the rolling quotas (posts, replies, deletions). */
export const DAY_MS = 24 * 3600_000;
export const DELETES_PER_DAY = 100;

export interface ThUser {
  id: string;
  username: string;
  name: string;
}

export type ThMediaType = 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL';

export interface ThContainerData {
  mediaType: ThMediaType;
  carouselItem: boolean;
  text: string;
  children: string[];
  replyTo: string | null;
  replyControl: string;
  altText: string | null;
}

export interface ThPost {
  id: string;
  owner: string;
  containerId: string;
  text: string;
  mediaType: 'TEXT_POST' | 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  shortcode: string;
  items: number;
  replyTo: string | null;
  root: string | null;
  replyControl: string;
  timestamp: number;
  deleted: boolean;
}

export interface ThState {
  users: Map<string, ThUser>;
  containers: ContainerStore<ThContainerData>;
  posts: Map<string, ThPost>;
  /** Publish times per account, posts and replies apart (250 and 1,000 per 24 h). */
  publishes: Map<string, number[]>;
  replies: Map<string, number[]>;
  deletions: Map<string, number[]>;
  spentCodes: Set<string>;
  clientSecrets: Map<string, string>;
  nextId(): string;
}

export function createThState(now: () => number, expiryMs: number): ThState {
  const nextId = graphIdFactory((Math.floor(now() / 1000) % 1_000_000) + 7);
  return {
    users: new Map(),
    containers: createContainerStore<ThContainerData>(now, { expiryMs }, nextId),
    posts: new Map(),
    publishes: new Map(),
    replies: new Map(),
    deletions: new Map(),
    spentCodes: new Set(),
    clientSecrets: new Map(),
    nextId,
  };
}

// The Instagram simulator's memory: professional accounts, media containers, published media with their
// comments, the publish times that make the rolling 24-hour quota, and spent authorization codes.
import { createContainerStore, graphIdFactory, type ContainerStore } from '../meta/graph.ts';

/** The span of the rolling quotas (publishes, container creations) and of a story's life. */
export const DAY_MS = 24 * 3600_000;

export interface IgUser {
  /** The Instagram professional account id used in publishing paths (`user_id` of /me). */
  id: string;
  /** The app-scoped id (`id` of /me under Instagram Login). */
  appScopedId: string;
  username: string;
  name: string;
}

export type IgMediaType = 'IMAGE' | 'VIDEO' | 'REELS' | 'STORIES' | 'CAROUSEL';

export interface IgContainerData {
  mediaType: IgMediaType;
  carouselItem: boolean;
  caption: string;
  altText: string | null;
  children: string[];
  mediaUrl: string | null;
  isVideo: boolean;
  shareToFeed: boolean;
}

export interface IgComment {
  id: string;
  text: string;
  username: string;
  timestamp: number;
}

export interface IgMedia {
  id: string;
  owner: string;
  containerId: string;
  caption: string;
  /** IMAGE, VIDEO or CAROUSEL_ALBUM, as the IG Media node reports it. */
  mediaType: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  productType: 'FEED' | 'REELS' | 'STORY';
  shortcode: string;
  items: number;
  timestamp: number;
  comments: IgComment[];
  deleted: boolean;
}

export interface IgState {
  users: Map<string, IgUser>;
  containers: ContainerStore<IgContainerData>;
  media: Map<string, IgMedia>;
  /** Publish times per account (rolling 24-hour quota). */
  publishes: Map<string, number[]>;
  /** Container creation times per account (400 per 24 h ⚠). */
  creations: Map<string, number[]>;
  spentCodes: Set<string>;
  /** client_id → the secret first presented with it (the simulator accepts any consistent pair). */
  clientSecrets: Map<string, string>;
  nextId(): string;
}

export function createIgState(now: () => number, expiryMs: number): IgState {
  const nextId = graphIdFactory(Math.floor(now() / 1000) % 1_000_000);
  return {
    users: new Map(),
    containers: createContainerStore<IgContainerData>(now, { expiryMs }, nextId),
    media: new Map(),
    publishes: new Map(),
    creations: new Map(),
    spentCodes: new Set(),
    clientSecrets: new Map(),
    nextId,
  };
}

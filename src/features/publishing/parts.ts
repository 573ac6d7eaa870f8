// Publishing the parts of one target, in order, exactly once each. A part is marked `sending` with its key
// before the platform call; a part found `sending` (a crash, an unknown outcome, a retry) is looked up on the
// platform before anything is sent again, and re-sent with the same key only when the platform does not have
// it. An unknown outcome is reconciled at once; an expired token is refreshed once and the call repeated.
import {
  isPlatformError,
  PlatformError,
  type OutgoingPart,
  type PlatformAdapter,
  type PlatformSession,
  type PreparedMedia,
  type PublishedPart,
} from '../../platforms/types.ts';
import type { MediaLibrary } from './media-library.ts';
import type { PartRow } from './target-parts.repo.ts';

/** The claim was taken over by another worker: stop without writing anything more. */
export class LostClaim extends Error {}

/** Where the parts' states are kept: writes fenced by the claim (false/undefined when it was lost). */
export interface PartsStore {
  /** The target's parts as the claim found them. */
  rows: PartRow[];
  markSending(position: number, key: string): Promise<PartRow | undefined>;
  markPublished(position: number, part: PublishedPart): Promise<boolean>;
}

export interface PartsContext {
  store: PartsStore;
  workspaceId: string;
  adapter: PlatformAdapter;
  /** The current session; `refresh` replaces it (once per attempt). */
  session: PlatformSession;
  refresh(): Promise<PlatformSession>;
  media: MediaLibrary;
  mediaIds: string[];
  /** Per-platform alt texts (`platform_options.<p>.alt_texts`), by media position; they replace the items' own. */
  altTexts: string[];
  texts: string[];
  options: Record<string, unknown>;
  now(): Date;
}

const published = (row: PartRow): PublishedPart => ({
  id: row.platform_post_id!,
  url: row.url!,
  ...(row.ref ? { ref: row.ref } : {}),
});

/** Publishes every part not yet published; returns the first part (the post) once all are out. */
export async function publishParts(ctx: PartsContext): Promise<PublishedPart> {
  const { rows } = ctx.store;
  let refreshed = false;
  let media: PreparedMedia[] | undefined;
  const done: PublishedPart[] = [];

  const send = async (part: OutgoingPart, resend: boolean): Promise<PublishedPart> => {
    try {
      return await ctx.adapter.publish(ctx.session, part);
    } catch (error) {
      if (!isPlatformError(error)) throw error;
      if (error.kind === 'auth_expired' && !refreshed) {
        refreshed = true;
        ctx.session = await ctx.refresh();
        return send(part, resend);
      }
      // A re-send refused as a duplicate means the first send landed after all (a look-up that missed it):
      // look once more rather than fail a post that is out.
      if (error.kind === 'unknown_outcome' || (resend && error.code === 'PLATFORM_DUPLICATE')) {
        const found = await ctx.adapter.findPublished(ctx.session, part).catch(() => null);
        if (found) return found;
      }
      throw error;
    }
  };

  for (const [index, text] of ctx.texts.entries()) {
    const row = rows.find((r) => r.position === index);
    if (row?.state === 'published') {
      done.push(published(row));
      continue;
    }
    const base = {
      index,
      text,
      parent: done[index - 1] ?? null,
      root: done[0] ?? null,
      options: ctx.options,
      media: [] as PreparedMedia[],
    };
    if (row) {
      // In flight when the last attempt ended: the platform may have it.
      const found = await ctx.adapter.findPublished(ctx.session, {
        ...base,
        key: row.idempotency_key,
        firstSentAt: row.first_sent_at,
      });
      if (found) {
        if (!(await ctx.store.markPublished(index, found))) throw new LostClaim();
        done.push(found);
        continue;
      }
    }
    if (index === 0 && ctx.mediaIds.length > 0) {
      const sources = (await ctx.media.sources(ctx.workspaceId, ctx.mediaIds)).map((source, i) =>
        ctx.altTexts[i] ? { ...source, altText: ctx.altTexts[i]! } : source,
      );
      media ??= await ctx.adapter.prepareMedia(ctx.session, sources, ctx.options);
    }
    const marked = row ?? (await ctx.store.markSending(index, ctx.adapter.newPartKey(ctx.now())));
    if (!marked) throw new LostClaim();
    const result = await send(
      {
        ...base,
        key: marked.idempotency_key,
        firstSentAt: marked.first_sent_at,
        media: index === 0 ? (media ?? []) : [],
      },
      row !== undefined,
    );
    if (!(await ctx.store.markPublished(index, result))) throw new LostClaim();
    done.push(result);
  }
  if (!done[0])
    throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', 'The post has nothing to publish.');
  return done[0];
}

// Publishing the parts of one target, in order, exactly once each. A part is marked `sending` with its key
// before the platform call; a part found `sending` (a crash, an unknown outcome, a retry) is looked up on the
// platform before anything is sent again, and re-sent with the same key only when the platform does not have
// it. An unknown outcome is reconciled at once; an expired token is refreshed once and the call repeated.
// What an adapter must find again to resume a part (a Meta container id) it records with `part.remember`, on the
// part's row before the call that uses it; the next attempt, in any process, reads it back from that row.
// A look-up adopts only a post no other part of the account holds (`heldElsewhere`, and the unique index behind
// it: docs/decisions.md "A platform post id is unique per connection"); a duplicate rejection names the Herald post
// that holds the text. A part whose only send the platform refused outright is forgotten (its row deleted), so that
// the next attempt sends it afresh instead of looking it up from that old send.
import {
  isPlatformError,
  PlatformError,
  type PlatformErrorKind,
  type OutgoingPart,
  type PendingRefs,
  type PlatformAdapter,
  type PlatformSession,
  type PreparedMedia,
  type PublishedPart,
} from '../../platforms/types.ts';
import { partMemory } from '../../platforms/part-memory.ts';
import type { MediaLibrary } from './media-library.ts';
import type { PartMark, PartRow } from './target-parts.repo.ts';

/** The claim was taken over by another worker: stop without writing anything more. */
export class LostClaim extends Error {}

/** A duplicate rejection of content a Herald post already holds on the account; that post travels with it. */
export class DuplicateOfPost extends PlatformError {
  readonly postId: string;
  constructor(error: PlatformError, postId: string, message: string) {
    super(error.kind, error.code, message, {
      retryAfterMs: error.retryAfterMs,
      platformStatus: error.platformStatus,
      platformBody: error.platformBody,
      cause: error,
    });
    this.postId = postId;
  }
}

/**
 * Failures that say the platform did not make the post: it refused the request (content, media, permissions, an
 * expired token, a rate limit) rather than leaving it unanswered. Not `unknown_outcome`, and not `transient` either:
 * a 5xx may come from a gateway after the post was made, and a network failure may follow a request fully sent.
 */
const REFUSALS: ReadonlySet<PlatformErrorKind> = new Set([
  'invalid_content',
  'media_rejected',
  'permanent',
  'auth_expired',
  'rate_limited',
]);

/** Where the parts' states are kept: writes fenced by the claim (false/undefined when it was lost). */
export interface PartsStore {
  /** The target's parts as the claim found them. */
  rows: PartRow[];
  markSending(position: number, key: string): Promise<PartRow | undefined>;
  markPublished(position: number, part: PublishedPart): Promise<PartMark>;
  /** Deletes a `sending` part (its send was refused): the next attempt marks it afresh. False: the claim was lost. */
  discard(position: number): Promise<boolean>;
  /**
   * Platform post ids other parts of the account hold (through this connection, or another of the workspace's
   * connections of the same platform account), published since `since`: no look-up may adopt them.
   */
  heldElsewhere(position: number, since: Date): Promise<ReadonlySet<string>>;
  /** The Herald post holding this text or platform post on the connection, when Herald published it. */
  holderOf(by: { text: string } | { platformPostId: string }): Promise<string | undefined>;
  /** Records a `sending` part's pending references (the adapter's `remember`). */
  remember(position: number, refs: PendingRefs): Promise<boolean>;
}

export interface PartsContext {
  store: PartsStore;
  workspaceId: string;
  adapter: PlatformAdapter;
  /** The current session; `refresh` replaces it (once per attempt). */
  session: PlatformSession;
  refresh(): Promise<PlatformSession>;
  media: MediaLibrary;
  /** The media ids of each part, by index (part-texts.ts); a part beyond the list has none. */
  partMedia: string[][];
  /**
   * Per-platform alt texts (`platform_options.<p>.alt_texts`) of the first part's media, by position; they replace
   * the items' own.
   */
  altTexts: string[];
  texts: string[];
  options: Record<string, unknown>;
  /** The last of `texts` is a first comment on part 0, made and looked up through the adapter's `ownComments`. */
  commentOnPost?: boolean;
  now(): Date;
}

/**
 * How far before a part's first send the ids other parts hold are gathered for its look-up. Adapters accept only
 * posts created after the first send began (less a clock allowance of seconds), and a part is recorded published
 * after its post was created, so a part recorded before this cannot hold a post the look-up may adopt.
 */
const HELD_SINCE_MS = 60 * 60_000;

const published = (row: PartRow): PublishedPart => ({
  id: row.platform_post_id!,
  url: row.url!,
  ...(row.ref ? { ref: row.ref } : {}),
});

/** Publishes every part not yet published; returns the first part (the post) once all are out. */
export async function publishParts(ctx: PartsContext): Promise<PublishedPart> {
  const { rows } = ctx.store;
  let refreshed = false;
  const done: PublishedPart[] = [];
  const mediaOf = (index: number): string[] => ctx.partMedia[index] ?? [];

  /** Each media item of the part as fitted to this platform's rules (a variant), uploaded by the adapter. */
  const prepare = async (index: number): Promise<PreparedMedia[]> => {
    const ids = mediaOf(index);
    if (ids.length === 0) return [];
    // A deferral (MediaPreparing) while a variant is being made.
    const target = {
      platform: ctx.adapter.platform,
      limits: ctx.adapter.limitsFor(ctx.session.connection),
      options: ctx.options,
    };
    const alt = index === 0 ? ctx.altTexts : [];
    const sources = (await ctx.media.sources(ctx.workspaceId, ids, target)).map((source, i) =>
      alt[i] ? { ...source, altText: alt[i] } : source,
    );
    return ctx.adapter.prepareMedia(ctx.session, sources, ctx.options);
  };

  /**
   * How a part is made and looked up: by the adapter's `publish` and `findPublished` (a post, a reply post), or, for a
   * first comment on the post, by its `ownComments` on part 0 (`root`).
   */
  const commentAt = ctx.commentOnPost ? ctx.texts.length - 1 : -1;
  const calls = (index: number) => {
    const { adapter } = ctx;
    if (index !== commentAt)
      return {
        publish: (s: PlatformSession, part: OutgoingPart) => adapter.publish(s, part),
        find: (s: PlatformSession, part: OutgoingPart) => adapter.findPublished(s, part),
      };
    const own = adapter.ownComments;
    if (!own)
      throw new PlatformError(
        'permanent',
        'PLATFORM_REJECTED',
        `Herald cannot comment on ${adapter.limits.displayName} posts; the first comment was not made.`,
      );
    return {
      publish: (s: PlatformSession, part: OutgoingPart) => own.create(s, part.root!, part),
      find: (s: PlatformSession, part: OutgoingPart) => own.find(s, part.root!, part),
    };
  };

  /** The part as a look-up gets it: with the platform ids the connection's other parts hold. */
  const forLookUp = async (part: OutgoingPart): Promise<OutgoingPart> => ({
    ...part,
    heldElsewhere: await ctx.store.heldElsewhere(part.index, new Date(part.firstSentAt.getTime() - HELD_SINCE_MS)),
  });

  /**
   * Looks the part up and records what is found. A post another part adopted meanwhile (the unique index refuses
   * it: `taken`) is looked past once more; null when the platform holds nothing that is provably this part's.
   */
  const adopt = async (part: OutgoingPart): Promise<PublishedPart | null> => {
    for (let look = 0; look < 2; look++) {
      const found = await calls(part.index).find(ctx.session, await forLookUp(part));
      if (!found) return null;
      const mark = await ctx.store.markPublished(part.index, found);
      if (mark === 'lost_claim') throw new LostClaim();
      if (mark === 'published') return found;
    }
    return null;
  };

  /** A duplicate rejection as it is, naming the Herald post that already holds the content when Herald knows it. */
  const duplicate = async (
    error: PlatformError,
    by: { text: string } | { platformPostId: string },
  ): Promise<PlatformError> => {
    const holder = await ctx.store.holderOf(by);
    if (!holder) return error;
    const what = 'text' in by ? 'this text' : `platform post ${by.platformPostId}`;
    return new DuplicateOfPost(
      error,
      holder,
      `${error.message} (Herald post ${holder} already holds ${what} on this account.)`,
    );
  };

  /** Sends the part and records what the platform answered (or what a look-up after an unknown outcome found). */
  const send = async (part: OutgoingPart, resend: boolean): Promise<PublishedPart> => {
    let result: PublishedPart;
    try {
      result = await calls(part.index).publish(ctx.session, part);
    } catch (error) {
      if (!isPlatformError(error)) throw error;
      if (error.kind === 'auth_expired' && !refreshed) {
        refreshed = true;
        ctx.session = await ctx.refresh();
        return send(part, resend);
      }
      // A re-send refused as a duplicate may mean the first send landed after all (a look-up that missed it):
      // look once more rather than fail a post that is out. A failed look-up leaves the platform's answer standing.
      if (error.kind === 'unknown_outcome' || (resend && error.code === 'PLATFORM_DUPLICATE')) {
        const found = await adopt(part).catch((lookUpError: unknown) => {
          if (isPlatformError(lookUpError)) return null;
          throw lookUpError;
        });
        if (found) return found;
      }
      if (error.code === 'PLATFORM_DUPLICATE') throw await duplicate(error, { text: part.text });
      throw error;
    }
    const mark = await ctx.store.markPublished(part.index, result);
    if (mark === 'lost_claim') throw new LostClaim();
    if (mark === 'taken') {
      // The platform answered with a post another part holds (an adapter that took the post its duplicate answer
      // named): that post is not this part's.
      const error = new PlatformError(
        'invalid_content',
        'PLATFORM_DUPLICATE',
        `The platform answered with post ${result.id}, which another Herald post already holds; it is not recorded for this one.`,
      );
      throw await duplicate(error, { platformPostId: result.id });
    }
    return result;
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
      // What a look-up compares when the media an earlier attempt uploaded are not known (`media` is empty then).
      mediaCount: mediaOf(index).length,
    };
    // The part's pending references, read back from its row and written there (fenced) by `remember`.
    const memory = partMemory(row?.pending_refs ?? {}, async (refs) => {
      if (!(await ctx.store.remember(index, refs))) throw new LostClaim();
    });
    if (row) {
      // In flight when the last attempt ended: the platform may have it.
      const found = await adopt({
        ...base,
        ...memory,
        key: row.idempotency_key,
        firstSentAt: row.first_sent_at,
      });
      if (found) {
        done.push(found);
        continue;
      }
    }
    const media = await prepare(index);
    const marked = row ?? (await ctx.store.markSending(index, ctx.adapter.newPartKey(ctx.now())));
    if (!marked) throw new LostClaim();
    const part: OutgoingPart = {
      ...base,
      ...memory,
      key: marked.idempotency_key,
      firstSentAt: marked.first_sent_at,
      media,
    };
    try {
      // A re-send may look up on its own (a Meta container already published): it too gets the ids held elsewhere.
      done.push(await send(row ? await forLookUp(part) : part, row !== undefined));
    } catch (error) {
      // The part's one and only send was refused: the platform made nothing of it, so nothing is to be looked up.
      // Its row goes, so the next attempt sends it afresh (a new key and first send) rather than adopting a post made
      // since this one by someone else. A part with an earlier, unanswered send (`row`) keeps its row: this refusal
      // says nothing of that send (a duplicate may even be it), and its look-up stays bound to it.
      if (!row && isPlatformError(error) && REFUSALS.has(error.kind) && !(await ctx.store.discard(index)))
        throw new LostClaim();
      throw error;
    }
  }
  if (!done[0])
    throw new PlatformError('invalid_content', 'PLATFORM_CONTENT_REJECTED', 'The post has nothing to publish.');
  return done[0];
}

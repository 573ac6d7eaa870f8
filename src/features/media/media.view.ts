// The public representation of a media record (docs/api.md "Media"), with a freshly signed short-lived URL while it
// is ready. Used by the media API, media events and the `media` list of a post.
import type { Queryable } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import { findManyMedia, type MediaRow } from './media.repo.ts';
import { variantViews, type VariantView } from './media.variants.ts';
import type { StorageReads } from './storage/storage.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export interface ViewDeps {
  storage: StorageReads;
  clock: Clock;
  readUrlTtlSeconds: number;
}

/** A signed GET URL for a ready media item's bytes, valid for `ttlSeconds`. */
export async function signedReadUrl(
  deps: Pick<ViewDeps, 'storage' | 'clock'>,
  media: Pick<MediaRow, 'workspace_id' | 'id' | 'storage_key' | 'content_type' | 'filename'> & { variant_id?: string },
  ttlSeconds: number,
): Promise<{ url: string; expiresAt: Date }> {
  if (!media.storage_key) throw new Error(`Media ${media.id} has no stored bytes`);
  // Whole seconds, so the expiry in the URL and the one reported agree.
  const expiresAt = new Date((Math.floor(deps.clock.now().getTime() / 1000) + ttlSeconds) * 1000);
  const url = await deps.storage.signRead({
    workspaceId: media.workspace_id,
    mediaId: media.id,
    storageKey: media.storage_key,
    contentType: media.content_type ?? 'application/octet-stream',
    filename: media.filename,
    expiresAt,
    ...(media.variant_id !== undefined && { variantId: media.variant_id }),
  });
  return { url, expiresAt };
}

/** `variants`: the media's ready variants (media.variants.ts `variantViews`); none for a media just completed. */
export async function mediaJson(
  deps: ViewDeps,
  m: MediaRow,
  variants: VariantView[] = [],
): Promise<Record<string, unknown>> {
  const read = m.status === 'ready' && m.storage_key ? await signedReadUrl(deps, m, deps.readUrlTtlSeconds) : null;
  return {
    id: m.id,
    object: 'media',
    kind: m.kind,
    filename: m.filename,
    content_type: m.content_type,
    status: m.status,
    failure_reason: m.failure_reason,
    size_bytes: m.size_bytes ?? m.declared_size,
    width: m.width,
    height: m.height,
    duration_ms: m.duration_ms,
    sha256: m.sha256,
    unreadable: m.unreadable,
    video:
      m.kind === 'video' && m.probed_with
        ? {
            container: m.container,
            video_codec: m.video_codec,
            audio_codec: m.audio_codec,
            frame_rate: m.frame_rate,
            probed_with: m.probed_with,
            transcodes: m.transcodes,
          }
        : null,
    source_url: m.source_url,
    metadata: m.metadata,
    url: read?.url ?? null,
    url_expires_at: read ? read.expiresAt.toISOString() : null,
    upload_expires_at: m.status === 'pending_upload' ? m.upload_expires_at.toISOString() : null,
    created_at: m.created_at.toISOString(),
    completed_at: iso(m.completed_at),
    variants,
  };
}

/**
 * The `media` lists of several posts with one query: each id in order, rendered; an id whose media was
 * deleted since the post was written is shown as `{ id, object: 'media', deleted: true }`.
 */
export async function renderMediaLists(
  deps: ViewDeps,
  db: Queryable,
  workspaceId: string,
  lists: string[][],
): Promise<Record<string, unknown>[][]> {
  const ids = [...new Set(lists.flat())];
  const rows = await findManyMedia(db, workspaceId, ids);
  const views = new Map<string, Record<string, unknown>>();
  const variants = await variantViews(db, workspaceId, ids);
  for (const row of rows) views.set(row.id, await mediaJson(deps, row, variants.get(row.id)));
  return lists.map((list) => list.map((id) => views.get(id) ?? { id, object: 'media', deleted: true }));
}

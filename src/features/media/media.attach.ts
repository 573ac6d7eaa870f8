// Media on posts: the checks `POST /posts`, `PATCH /posts/{id}` and `POST /posts/validate` run on `media_ids`
// (each exists in this workspace, is ready, and fits every target platform), called by the posts service.
import type { Queryable } from '../../db/pool.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import { completeRemote, type CompleteDeps } from './media.complete.ts';
import { findManyMedia, type MediaRow } from './media.repo.ts';
import { checkMediaForPlatform, checkMediaRules, type AttachedMedia, type MediaIssue } from './media.rules.ts';
import { fitIssues, targetsOf, type FitTarget } from './media.variants.ts';
import type { MediaStorage } from './storage/storage.ts';

/**
 * Media rows by id, after completing s3 uploads that arrived since (the store does not tell Herald; a HEAD
 * when the media is attached or read does). Completion commits on its own connection, so it runs before
 * `share` locks the rows in the caller's transaction (the other order would wait on itself).
 */
export async function loadCompleted(
  deps: CompleteDeps & { storage: MediaStorage },
  db: Queryable,
  workspaceId: string,
  ids: readonly string[],
  share = false,
): Promise<Map<string, MediaRow>> {
  let rows = await findManyMedia(db, workspaceId, ids);
  if (deps.storage.driver === 's3') {
    for (const row of rows.filter((r) => r.status === 'pending_upload'))
      await completeRemote({ ...deps, storage: deps.storage }, row);
  }
  if (share || rows.some((r) => r.status === 'pending_upload')) rows = await findManyMedia(db, workspaceId, ids, share);
  return new Map(rows.map((row) => [row.id, row]));
}

/** A ready media row as the platform rules see it. */
function attached(row: MediaRow, position: number, transcodable: boolean): AttachedMedia {
  return {
    id: row.id,
    position,
    contentType: row.content_type!,
    sizeBytes: row.size_bytes ?? 0,
    durationMs: row.duration_ms,
    video:
      // Probed at upload; a video uploaded before Herald probed videos is checked on type, size and duration.
      row.kind === 'video' && row.probed_with !== null
        ? {
            width: row.width,
            height: row.height,
            container: row.container,
            videoCodec: row.video_codec,
            audioCodec: row.audio_codec,
            frameRate: row.frame_rate,
          }
        : undefined,
    transcodable,
  };
}

/**
 * The publishing engine's late check: media fetched from a URL were not known when the post was checked (they were
 * `processing`), so a target checks them against its platform's rules once they are ready, before anything is
 * sent. Empty when no media of the post came from a URL.
 */
export function lateIssues(rows: MediaRow[], target: FitTarget): MediaIssue[] {
  if (!rows.some((row) => row.source_url !== null)) return [];
  const items = rows.map((row, position) => attached(row, position, target.transcodeVideo === true));
  return [
    ...checkMediaForPlatform(target.platform, items, target.limits),
    ...fitIssues(
      rows.map((row, position) => ({ row, position })),
      [target],
    ),
  ];
}

export async function postMediaIssues(
  deps: CompleteDeps & { storage: MediaStorage },
  db: Queryable,
  workspaceId: string,
  input: { mediaIds: readonly string[]; platforms: readonly PlatformName[]; targets?: FitTarget[] },
): Promise<MediaIssue[]> {
  if (input.mediaIds.length === 0) return [];
  const rows = await loadCompleted(deps, db, workspaceId, input.mediaIds, true);
  const issues: MediaIssue[] = [];
  const ready: AttachedMedia[] = [];
  input.mediaIds.forEach((id, position) => {
    const path = `/media_ids/${position}`;
    const row = rows.get(id);
    if (!row) {
      issues.push({ platform: null, rule: 'media_not_found', message: `No media ${id} in this workspace.`, path });
    } else if (row.status === 'pending_upload') {
      issues.push({
        platform: null,
        rule: 'media_not_ready',
        message: `Media ${id} has not been uploaded yet: PUT its bytes to the upload URL first.`,
        path,
      });
    } else if (row.status === 'processing') {
      // Fetched from a URL and not there yet: the post may be made, its targets wait for the fetch (and fail with
      // its reason if it fails); the platform rules are checked once the bytes are known.
    } else if (row.status === 'failed') {
      issues.push({
        platform: null,
        rule: 'media_failed',
        message: `Media ${id} failed${row.source_url ? ' to be fetched from its URL' : ' its checks'}: ${row.failure_reason ?? 'unknown reason'}`,
        path,
      });
    } else {
      ready.push(attached(row, position, input.targets?.some((target) => target.transcodeVideo === true) ?? false));
    }
  });
  // Images: what cannot be fitted to a target's image rules (fit/plan.ts), from the stored facts alone.
  const fitted = input.targets ?? targetsOf(input.platforms, undefined);
  const images = ready.map((m) => ({ row: rows.get(m.id)!, position: m.position }));
  return [...issues, ...checkMediaRules(input.platforms, ready), ...fitIssues(images, fitted)];
}

// Media: upload URLs, completion, reads, deletion (docs/api.md "Media"), and what other features use — the checks
// posts run on `media_ids`, the `media` list of a post, and (for the publishing engine) streams and signed
// URLs of ready media. Knows nothing of Fastify: the API, the worker and the MCP tools call the same functions.
import type { Readable } from 'node:stream';
import type { MediaConfig } from '../../config.ts';
import type { Pool, Queryable } from '../../db/pool.ts';
import type { ServiceContext } from '../../app/context.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeCursor, encodeCursor } from '../../app/cursor.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import { loadCompleted, postMediaIssues } from './media.attach.ts';
import { mediaTasks, queueMediaPurge, sweepMedia } from './media.cleanup.ts';
import { completeRemote, type CompleteDeps } from './media.complete.ts';
import * as repo from './media.repo.ts';
import type { MediaRow, MediaStatus } from './media.repo.ts';
import type { MediaIssue } from './media.rules.ts';
import type { ListMediaQuery, UploadUrlBody } from './media.schemas.ts';
import {
  acceptLocalUpload,
  openLocalFile,
  type LocalFile,
  type LocalUploadRequest,
  type SignedRequest,
} from './media.transfer.ts';
import { isUploadType, kindOf, normaliseContentType, UPLOAD_TYPES, type UploadKind } from './media.types.ts';
import { mediaJson, renderMediaLists, signedReadUrl } from './media.view.ts';
import type { ByteRange, MediaStorage } from './storage/storage.ts';

export interface MediaDeps {
  pool: Pool;
  storage: MediaStorage;
  config: MediaConfig;
  clock: Clock;
  logger: Logger;
}

const bodyInvalid = (path: string, message: string, detail: string) =>
  new AppError('PUBLIC_API_BODY_INVALID', message, { details: [{ path, message: detail }] });

export function createMediaService(deps: MediaDeps) {
  const { storage, config, clock } = deps;
  const complete: CompleteDeps & { storage: MediaStorage } = {
    pool: deps.pool,
    logger: deps.logger,
    storage,
    clock,
    readUrlTtlSeconds: config.readUrlTtlSeconds,
  };
  const view = (row: MediaRow) => mediaJson(complete, row);

  function localOnly(): CompleteDeps & { storage: Extract<MediaStorage, { driver: 'local' }> } {
    if (storage.driver !== 'local')
      throw new AppError(
        'PUBLIC_API_SIGNED_URL_INVALID',
        'This server keeps media in S3; upload to the URL `POST /v1/media/upload-url` returned.',
      );
    return { ...complete, storage };
  }

  /** The media, completed first when an s3 upload has arrived since it was last looked at. */
  async function current(db: Queryable, workspaceId: string, id: string): Promise<MediaRow> {
    const row = await repo.findMedia(db, workspaceId, id);
    if (!row) throw notFound('media');
    if (row.status !== 'pending_upload' || storage.driver !== 's3') return row;
    const result = await completeRemote({ ...complete, storage }, row);
    return result === 'not_uploaded' ? row : result;
  }

  return {
    async createUpload(ctx: ServiceContext, body: UploadUrlBody) {
      const contentType = normaliseContentType(body.content_type);
      if (!contentType)
        throw bodyInvalid(
          '/content_type',
          `content_type "${body.content_type}" is not a media type (type/subtype).`,
          'is not a media type',
        );
      if (!isUploadType(contentType)) {
        throw validationFailed([
          {
            platform: null,
            rule: 'content_type_unsupported',
            path: '/content_type',
            message: `Herald does not accept ${contentType}; it accepts ${Object.keys(UPLOAD_TYPES).join(', ')}.`,
          },
        ]);
      }
      const kind = kindOf(contentType);
      const cap = config.maxBytes[kind];
      const declared = body.size_bytes ?? null;
      if (declared === null && storage.driver === 's3') {
        throw bodyInvalid(
          '/size_bytes',
          'size_bytes is required: this server stores media in S3, whose upload URL signs the exact size.',
          'is required with s3 storage',
        );
      }
      if (declared !== null && declared > cap) {
        throw new AppError(
          'PUBLIC_API_PAYLOAD_TOO_LARGE',
          `${kind} uploads are limited to ${cap} bytes; size_bytes is ${declared}.`,
          { details: [{ path: '/size_bytes', message: `is over the ${kind} limit of ${cap} bytes` }] },
        );
      }
      const id = newId('med');
      // Whole seconds: the expiry signed into the URL and the one reported are the same instant.
      const expiresAt = new Date((Math.floor(clock.now().getTime() / 1000) + config.uploadUrlTtlSeconds) * 1000);
      const filename = body.filename.split(/[/\\]/).pop() || body.filename;
      const row = await repo.insertMedia(ctx.db, {
        id,
        workspaceId: ctx.workspaceId,
        filename,
        contentType,
        kind,
        declaredSize: declared,
        maxBytes: declared ?? cap,
        storageDriver: storage.driver,
        uploadKey: storage.driver === 's3' ? `uploads/${ctx.workspaceId}/${id}` : `${ctx.workspaceId}/${id}`,
        uploadExpiresAt: expiresAt,
        createdBy: ctx.userId,
      });
      const ticket = {
        workspaceId: ctx.workspaceId,
        mediaId: id,
        uploadKey: row.upload_key,
        contentType,
        maxBytes: row.max_bytes,
        declaredSize: declared,
        expiresAt,
      };
      const signed =
        storage.driver === 's3'
          ? await storage.signUpload({ ...ticket, declaredSize: declared! })
          : await storage.signUpload(ticket);
      return {
        media_id: id,
        upload: {
          signed_url: signed.url,
          method: 'PUT',
          headers: signed.headers,
          expires_at: expiresAt.toISOString(),
          max_bytes: row.max_bytes,
        },
      };
    },

    async get(ctx: ServiceContext, id: string) {
      return view(await current(ctx.db, ctx.workspaceId, id));
    },

    async list(ctx: ServiceContext, query: ListMediaQuery) {
      const limit = query.limit ?? 20;
      const filters: repo.MediaFilters = {
        statuses: query.status ? ([...new Set(query.status.split(','))].sort() as MediaStatus[]) : undefined,
        kinds: query.kind ? ([...new Set(query.kind.split(','))].sort() as UploadKind[]) : undefined,
      };
      const after = query.cursor ? decodeCursor(query.cursor, filters) : undefined;
      const rows = await repo.listMedia(ctx.db, ctx.workspaceId, filters, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const hasMore = rows.length > limit && last !== undefined;
      const pending = page.filter((r) => r.status === 'pending_upload').map((r) => r.id);
      const refreshed =
        pending.length > 0
          ? await loadCompleted(complete, ctx.db, ctx.workspaceId, pending)
          : new Map<string, MediaRow>();
      const items = [];
      for (const row of page) items.push(await view(refreshed.get(row.id) ?? row));
      return {
        items,
        next_cursor: hasMore ? encodeCursor({ value: last.created_at.toISOString(), id: last.id }, filters) : null,
        has_more: hasMore,
      };
    },

    /** `POST /media/{id}/complete`: tells Herald an s3 upload is done; answers the media as it then is. */
    async complete(ctx: ServiceContext, id: string) {
      const row = await current(ctx.db, ctx.workspaceId, id);
      if (row.status === 'pending_upload') {
        const expired = row.upload_expires_at.getTime() <= clock.now().getTime();
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          storage.driver === 'local'
            ? 'No bytes have been uploaded yet: PUT them to the upload URL, which completes the media by itself.'
            : `No bytes have arrived at the upload URL yet${expired ? ', and it has expired: request a new one' : ''}.`,
        );
      }
      return view(row);
    },

    async remove(ctx: ServiceContext, id: string) {
      const row = await repo.findMedia(ctx.db, ctx.workspaceId, id, true);
      if (!row) throw notFound('media');
      const posts = await repo.postsAwaitingPublication(ctx.db, ctx.workspaceId, id);
      if (posts.length > 0) {
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `Media ${id} is used by a post that is still to be published (${posts.join(', ')}); remove it from the post or cancel the post first.`,
        );
      }
      await repo.markDeleted(ctx.db, ctx.workspaceId, id);
      await queueMediaPurge(ctx.db, ctx.workspaceId, id);
      return { id, object: 'media', deleted: true };
    },

    // ---- the local driver's own URLs ---------------------------------------------------------------------

    acceptLocalUpload: (request: LocalUploadRequest) => acceptLocalUpload(localOnly(), request),
    openLocalFile: (request: SignedRequest & { range: string | undefined }): Promise<LocalFile> =>
      openLocalFile(localOnly(), request),

    // ---- for the posts feature ---------------------------------------------------------------------------

    /** Issues with a post's `media_ids` for these platforms (empty when they are all ready and fit). */
    postIssues: (
      ctx: Pick<ServiceContext, 'db' | 'workspaceId'>,
      mediaIds: readonly string[],
      platforms: readonly PlatformName[],
    ): Promise<MediaIssue[]> => postMediaIssues(complete, ctx.db, ctx.workspaceId, { mediaIds, platforms }),
    /** The `media` lists of several posts, in order, with one query. */
    renderLists: (db: Queryable, workspaceId: string, lists: string[][]) =>
      renderMediaLists(complete, db, workspaceId, lists),

    // ---- for the publishing engine -----------------------------------------------------------------------

    /** A post's media rows in `media_ids` order; undefined where a media no longer exists. */
    async mediaForPost(
      db: Queryable,
      workspaceId: string,
      mediaIds: readonly string[],
    ): Promise<(MediaRow | undefined)[]> {
      const rows = await loadCompleted(complete, db, workspaceId, mediaIds);
      return mediaIds.map((id) => rows.get(id));
    },
    /** The stored bytes of a ready media item (`row.storage_key`), whole or an inclusive byte range. */
    openMediaStream: (storageKey: string, range?: ByteRange): Promise<Readable> => storage.open(storageKey, range),
    /** A GET URL a platform can fetch the bytes from (Instagram, Threads), valid for `ttlSeconds`. */
    signedReadUrl: (
      media: Pick<MediaRow, 'workspace_id' | 'id' | 'storage_key' | 'content_type' | 'filename'>,
      ttlSeconds: number,
    ) => signedReadUrl(complete, media, ttlSeconds),

    // ---- housekeeping -----------------------------------------------------------------------------------

    /** The worker tasks `purge_media` and `media_cleanup`. */
    tasks: () => mediaTasks({ ...complete, retentionDays: config.retentionDays }),
    /** One cleanup pass now (what `media_cleanup` runs), with counts of what it removed. */
    sweep: () => sweepMedia({ ...complete, retentionDays: config.retentionDays }),

    storage,
  };
}

export type MediaService = ReturnType<typeof createMediaService>;

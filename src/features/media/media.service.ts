// Media: upload URLs, completion, reads, deletion (docs/api.md "Media"), and what other features use — the checks
// posts run on `media_ids`, the `media` list of a post, and (for the publishing engine) streams and signed
// URLs of ready media. Knows nothing of Fastify: the API, the worker and the MCP tools call the same functions.
import type { Readable } from 'node:stream';
import type { MediaConfig } from '../../config.ts';
import type { Pool, Queryable } from '../../db/pool.ts';
import type { ServiceContext } from '../../app/context.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeCursor, keysetPage } from '../../app/cursor.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PlatformLimits, PlatformName } from '../../platforms/limits.ts';
import { lateIssues, loadCompleted, postMediaIssues } from './media.attach.ts';
import { mediaTasks, queueMediaPurge, sweepMedia } from './media.cleanup.ts';
import { completeRemote, refusedUpload, type CompleteDeps } from './media.complete.ts';
import * as repo from './media.repo.ts';
import { brandsUsingMedia } from '../brands/brands.repo.ts';
import type { MediaRow, MediaStatus } from './media.repo.ts';
import type { MediaIssue } from './media.rules.ts';
import type { ListMediaQuery, MediaFromUrlBody, UpdateMediaBody, UploadUrlBody } from './media.schemas.ts';
import { createFromUrl, runMediaFetch, type FetchDeps } from './media.from-url.ts';
import { fileRefSources, type FileRef } from './media.file-refs.ts';
import type { OutboundGuard } from '../../lib/ssrf.ts';
import { initialMetadata, mergeMetadata } from '../../app/metadata.ts';
import {
  acceptLocalUpload,
  openLocalFile,
  type LocalFile,
  type LocalUploadRequest,
  type SignedRequest,
} from './media.transfer.ts';
import { capOf, isUploadType, kindOf, normaliseContentType, UPLOAD_TYPES, type UploadKind } from './media.types.ts';
import { mediaJson, renderMediaLists, signedReadUrl } from './media.view.ts';
import type { ByteRange, MediaStorage } from './storage/storage.ts';
import {
  mediaForTarget,
  postMediaPlans,
  preparePostVariants,
  targetsOf,
  variantMaker,
  variantViews,
  type FitTarget,
} from './media.variants.ts';

/** A post's options and per-connection limits, for fitting its media (`platform_options.<p>.media_fit` …). */
export interface PostFit {
  options?: Record<string, unknown>;
  limitsOf?: (platform: PlatformName) => PlatformLimits;
}

export interface MediaDeps {
  pool: Pool;
  storage: MediaStorage;
  config: MediaConfig;
  clock: Clock;
  logger: Logger;
  /** The SSRF guard media by URL are fetched through. */
  guard: OutboundGuard;
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
    ffprobe: config.ffprobe,
  };
  const fetching: FetchDeps = { ...complete, config, guard: deps.guard };
  const view = (row: MediaRow) => mediaJson(complete, row);
  const makeVariant = variantMaker({
    pool: deps.pool,
    storage,
    logger: deps.logger,
    conversions: config.conversions,
    video: { pool: deps.pool, storage, logger: deps.logger, ffmpeg: config.ffmpeg, render: view },
  });
  // Videos outside a platform's rules become H.264/AAC MP4 variants only where FFmpeg is available.
  const transcodeVideo = config.ffmpeg !== null;
  const fitTargets = (platforms: readonly PlatformName[], fit?: PostFit): FitTarget[] =>
    targetsOf(platforms, fit?.options, fit?.limitsOf).map((target) => ({ ...target, transcodeVideo }));

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
      const cap = capOf(contentType, config.maxBytes);
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
          `${UPLOAD_TYPES[contentType]!.maxBytes ? contentType : kind} uploads are limited to ${cap} bytes; size_bytes is ${declared}.`,
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
        metadata: initialMetadata(body.metadata),
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

    /** `POST /media` with `url`: a `processing` media whose bytes a job fetches (media.from-url.ts). */
    createFromUrl: (ctx: ServiceContext, body: MediaFromUrlBody) => createFromUrl(fetching, ctx, body),

    /**
     * Files a custom GPT action sent (`openaiFileIdRefs`, media.file-refs.ts): each a media by URL, in order.
     * `path` is where the list sits in the request, for the 422's details.
     */
    async createFromFileRefs(
      ctx: ServiceContext,
      refs: readonly FileRef[],
      path: string,
      metadata?: MediaFromUrlBody['metadata'],
    ) {
      const created = [];
      for (const source of fileRefSources(refs, config.actionsFileHosts, clock.now(), path))
        created.push(await createFromUrl(fetching, ctx, { ...source, metadata }));
      return created;
    },

    /** Checks file references as createFromFileRefs does, creating nothing (`POST /posts/validate`). */
    checkFileRefs: (refs: readonly FileRef[], path: string) =>
      void fileRefSources(refs, config.actionsFileHosts, clock.now(), path),

    async get(ctx: ServiceContext, id: string) {
      const row = await current(ctx.db, ctx.workspaceId, id);
      return mediaJson(complete, row, (await variantViews(ctx.db, ctx.workspaceId, [id])).get(id));
    },

    async list(ctx: ServiceContext, query: ListMediaQuery) {
      const limit = query.limit ?? 20;
      const filters: repo.MediaFilters = {
        statuses: query.status ? ([...new Set(query.status)].sort() as MediaStatus[]) : undefined,
        kinds: query.kind ? ([...new Set(query.kind)].sort() as UploadKind[]) : undefined,
      };
      const after = query.cursor ? decodeCursor(query.cursor, filters) : undefined;
      const rows = await repo.listMedia(ctx.db, ctx.workspaceId, filters, after, limit + 1);
      const { page, ...more } = keysetPage(rows, limit, filters, (row) => row.created_at);
      const pending = page.filter((r) => r.status === 'pending_upload').map((r) => r.id);
      const refreshed =
        pending.length > 0
          ? await loadCompleted(complete, ctx.db, ctx.workspaceId, pending)
          : new Map<string, MediaRow>();
      const items = [];
      const variants = await variantViews(
        ctx.db,
        ctx.workspaceId,
        page.map((r) => r.id),
      );
      for (const row of page) items.push(await mediaJson(complete, refreshed.get(row.id) ?? row, variants.get(row.id)));
      return { items, ...more };
    },

    /** `POST /media/{id}/complete`: tells Herald an s3 upload is done; answers the media as it then is. */
    async complete(ctx: ServiceContext, id: string) {
      const row = await current(ctx.db, ctx.workspaceId, id);
      if (row.status === 'processing')
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          'This media is being fetched from its URL; it completes by itself (media.ready or media.failed).',
        );
      // A refused upload is refused here too, as the PUT to a local upload URL is: 422 with the reason.
      if (row.status === 'failed') throw refusedUpload(row);
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

    /** `PATCH /media/{id}`: merges `metadata` (docs/api.md "Metadata"); the bytes of a media never change. */
    async update(ctx: ServiceContext, id: string, body: UpdateMediaBody) {
      const row = await repo.findMedia(ctx.db, ctx.workspaceId, id, true);
      if (!row) throw notFound('media');
      if (body.metadata === undefined) return view(row);
      return view(await repo.setMetadata(ctx.db, ctx.workspaceId, id, mergeMetadata(row.metadata, body.metadata)));
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
      const brands = await brandsUsingMedia(ctx.db, ctx.workspaceId, id);
      if (brands.length > 0) {
        throw new AppError(
          'PUBLIC_API_STATE_CONFLICT',
          `Media ${id} is the logo or a document of brand ${brands.join(', ')}; remove it from the brand first.`,
        );
      }
      await repo.markDeleted(ctx.db, ctx.workspaceId, id);
      await queueMediaPurge(ctx.db, ctx.workspaceId, id);
      return { id, object: 'media', deleted: true };
    },

    // ---- the local driver's own URLs ---------------------------------------------------------------------

    acceptLocalUpload: (request: LocalUploadRequest) => acceptLocalUpload(localOnly(), request),
    openLocalFile: (request: SignedRequest & { range: string | undefined; variant?: unknown }): Promise<LocalFile> =>
      openLocalFile(localOnly(), request),

    // ---- for the posts feature ---------------------------------------------------------------------------

    /** Issues with a post's `media_ids` for these platforms (empty when they are all ready and fit). */
    postIssues: (
      ctx: Pick<ServiceContext, 'db' | 'workspaceId'>,
      mediaIds: readonly string[],
      platforms: readonly PlatformName[],
      fit?: PostFit,
    ): Promise<MediaIssue[]> =>
      postMediaIssues(complete, ctx.db, ctx.workspaceId, {
        mediaIds,
        platforms,
        targets: fitTargets(platforms, fit),
      }),
    /** `POST /posts/validate`: what will be done to each media item on each platform (converted, scaled …). */
    mediaPlans: (
      ctx: Pick<ServiceContext, 'db' | 'workspaceId'>,
      mediaIds: readonly string[],
      platforms: readonly PlatformName[],
      fit?: PostFit,
    ) => postMediaPlans(ctx.db, ctx.workspaceId, mediaIds, fitTargets(platforms, fit)),
    /** A post was written: its variants are asked for now (jobs in the caller's transaction). */
    prepareVariants: (
      ctx: Pick<ServiceContext, 'db' | 'workspaceId'>,
      mediaIds: readonly string[],
      platforms: readonly PlatformName[],
      fit?: PostFit,
    ) => preparePostVariants(ctx.db, ctx.workspaceId, mediaIds, fitTargets(platforms, fit)),
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
      media: Pick<MediaRow, 'workspace_id' | 'id' | 'storage_key' | 'content_type' | 'filename'> & {
        variant_id?: string;
      },
      ttlSeconds: number,
    ) => signedReadUrl(complete, media, ttlSeconds),
    /** The media of one target as it will send them: originals, ready variants, or variants still to make. */
    mediaForTarget: (db: Queryable, workspaceId: string, media: MediaRow[], target: FitTarget) =>
      mediaForTarget(db, workspaceId, media, { ...target, transcodeVideo }),
    /** Rules broken by media fetched from a URL after the post was checked (media.attach.ts `lateIssues`). */
    lateIssues: (media: MediaRow[], target: FitTarget) => lateIssues(media, { ...target, transcodeVideo }),

    // ---- housekeeping -----------------------------------------------------------------------------------

    /** The worker tasks `purge_media` and `media_cleanup`. */
    tasks: () => ({
      ...mediaTasks({ ...complete, retentionDays: config.retentionDays }),
      make_media_variant: async (payload: unknown, helpers: { job: { attempts: number; max_attempts: number } }) => {
        await makeVariant(payload as { workspace_id: string; variant_id: string }, {
          attempts: helpers.job.attempts,
          maxAttempts: helpers.job.max_attempts,
        });
      },
      fetch_media: async (payload: unknown, helpers: { job: { attempts: number; max_attempts: number } }) => {
        const { workspace_id: workspaceId, media_id: mediaId } = payload as { workspace_id: string; media_id: string };
        await runMediaFetch(fetching, workspaceId, mediaId, helpers.job.attempts >= helpers.job.max_attempts);
      },
    }),
    /** One cleanup pass now (what `media_cleanup` runs), with counts of what it removed. */
    sweep: () => sweepMedia({ ...complete, retentionDays: config.retentionDays }),

    storage,
  };
}

export type MediaService = ReturnType<typeof createMediaService>;

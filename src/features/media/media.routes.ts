// Routes of the media API under /v1: schema, access and one service call each.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope, ListOf } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { listQuery } from '../../http/query.ts';
import { typed } from '../../http/type-provider.ts';
import { type IdempotencyDeps } from '../../app/idempotency.ts';
import { ActionBody } from '../posts/posts.schemas.ts';
import type { MediaService } from './media.service.ts';
import { UPLOAD_CALLBACK } from './media.upload-callback.ts';
import {
  CreateMediaBody,
  DeletedMedia,
  ListMediaQuery,
  MediaIdParams,
  UpdateMediaBody,
  UploadUrlBody,
  UploadUrlResult,
} from './media.schemas.ts';

const read: RouteAccess = { scopes: ['media:write', 'posts:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['media:write'], workspace: true, mutates: true };
const action: RouteAccess = { ...write, actionBody: true };
const MediaRef = Type.Ref('Media');

export function registerMediaRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; media: MediaService },
): void {
  const app = typed(fastify);
  const { media } = deps;
  const tags = ['Media'];

  app.post(
    '/media/upload-url',
    {
      config: { access: write },
      schema: {
        operationId: 'createMediaUploadUrl',
        tags,
        summary: 'Get a signed upload URL',
        description: [
          'Creates a media record (`pending_upload`) and a single-use URL to PUT its bytes to, with the `Content-Type` given in `upload.headers` and no Authorization header.',
          'Caps per kind: image 20 MiB, video 4 GiB, document 100 MiB (configurable); `max_bytes` is the smaller of the cap and `size_bytes`.',
          'With local storage the PUT answers only once the bytes are checked: 200 with the media record (`ready`), so a post can use the id at once, or 422. With S3 storage the PUT goes to the store; Herald completes the media when it is next read or attached, or on `POST /media/{id}/complete`.',
          'The bytes are sniffed: a body that is not the declared type makes the media `failed`, with a reason, emits `media.failed`, and the PUT (local storage) or `POST /media/{id}/complete` (S3) answers 422 with that reason.',
        ].join('\n\n'),
        body: UploadUrlBody,
        'x-herald-callbacks': UPLOAD_CALLBACK,
        response: {
          201: Envelope(UploadUrlResult, 'The media record exists; upload its bytes to `upload.signed_url`.'),
        },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 201,
      data: await media.createUpload(serviceContext(request, tx), request.body),
    })),
  );

  app.post(
    '/media',
    {
      config: { access: { ...write, idempotencyField: true } },
      schema: {
        operationId: 'createMedia',
        tags,
        summary: 'Create a media item: an upload, or a file fetched from a URL',
        description: [
          'Two body shapes. An upload request (`filename`, `content_type`, `size_bytes`) is exactly `POST /media/upload-url`: 201 with the signed upload URL.',
          'A URL (`url`, optional `filename`), or one file a custom GPT action sends (`openaiFileIdRefs`, from a host in `HERALD_ACTIONS_FILE_HOSTS` while its link is valid): 202 with the media, `processing`. A job fetches the file through the SSRF guard — `https` only (plain `http` for hosts in `HERALD_OUTBOUND_ALLOWLIST`), private and reserved addresses refused on every redirect (at most 5), at most the largest media cap in bytes, within `HERALD_MEDIA_FETCH_TIMEOUT_SECONDS` — and checks the bytes exactly as an upload: the media becomes `ready` (`media.ready`) or `failed` with `failure_reason` (`media.failed`).',
          'A post may use the media at once: its targets wait for the fetch, and fail with its reason if it fails; a post created or validated after the fetch failed is a 422 (`media_failed`).',
        ].join('\n\n'),
        body: CreateMediaBody,
        'x-herald-callbacks': UPLOAD_CALLBACK,
        response: {
          201: Envelope(
            UploadUrlResult,
            'An upload request: the media record exists; upload its bytes to `upload.signed_url`.',
          ),
          202: Envelope(MediaRef, 'A URL: the media, `processing` while the file is fetched.'),
        },
      },
    },
    mutation(deps, async (request, tx) => {
      const { body } = request;
      const ctx = serviceContext(request, tx);
      if ('url' in body) return { status: 202, data: await media.createFromUrl(ctx, body) };
      if ('openaiFileIdRefs' in body) {
        const [created] = await media.createFromFileRefs(
          ctx,
          body.openaiFileIdRefs,
          '/openaiFileIdRefs',
          body.metadata,
        );
        return { status: 202, data: created };
      }
      return { status: 201, data: await media.createUpload(ctx, body) };
    }),
  );

  app.get(
    '/media',
    {
      config: { access: read },
      schema: {
        operationId: 'listMedia',
        tags,
        summary: 'List media',
        description: 'Media of the workspace, newest first, paginated by an opaque cursor.',
        querystring: ListMediaQuery,
        response: { 200: Envelope(ListOf(MediaRef)) },
      },
      preValidation: [listQuery('status'), listQuery('kind')],
    },
    async (request) => media.list(serviceContext(request, deps.pool), request.query),
  );

  app.get(
    '/media/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getMedia',
        tags,
        summary: 'Get a media item',
        description:
          'The media record; while `ready`, `url` is a short-lived signed download URL (see `url_expires_at`).',
        params: MediaIdParams,
        response: { 200: Envelope(MediaRef) },
      },
    },
    async (request) => media.get(serviceContext(request, deps.pool), request.params.id),
  );

  app.patch(
    '/media/:id',
    {
      config: { access: write },
      schema: {
        operationId: 'updateMedia',
        tags,
        summary: 'Edit a media item',
        description:
          'Changes what can change after an upload: `metadata`, merged key by key (a key set to `""` or `null` is removed).',
        params: MediaIdParams,
        body: UpdateMediaBody,
        response: { 200: Envelope(MediaRef) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await media.update(serviceContext(request, tx), request.params.id, request.body),
    })),
  );

  app.post(
    '/media/:id/complete',
    {
      config: { access: action },
      schema: {
        operationId: 'completeMedia',
        tags,
        summary: 'Complete an upload',
        description:
          'Tells Herald that the PUT to an S3 upload URL finished: the object is checked, sniffed and made `ready` or `failed`. Idempotent: a ready media is returned as it is; a refused one is a 422 with its `failure_reason`, every time. 409 while no bytes have arrived (or while a media by URL is being fetched).',
        params: MediaIdParams,
        body: ActionBody,
        response: { 200: Envelope(MediaRef) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await media.complete(serviceContext(request, tx), request.params.id),
    })),
  );

  app.delete(
    '/media/:id',
    {
      config: { access: action },
      schema: {
        operationId: 'deleteMedia',
        tags,
        summary: 'Delete a media item',
        description:
          'Deletes the media and its bytes. Refused (409) while a scheduled post, or one awaiting approval or being published, uses it; drafts that list it show it as deleted.',
        params: MediaIdParams,
        body: ActionBody,
        response: {
          200: Envelope(DeletedMedia),
        },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await media.remove(serviceContext(request, tx), request.params.id),
    })),
  );
}

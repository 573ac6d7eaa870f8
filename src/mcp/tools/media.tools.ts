// MCP tools over the media service: the same calls, scopes and schemas as /v1/media. An assistant cannot send
// bytes through MCP, so create_media_upload returns the signed URL the user (or their code) PUTs the file to.
import type { MediaService } from '../../features/media/media.service.ts';
import { MediaFromUrlBody, UploadUrlBody } from '../../features/media/media.schemas.ts';
import type { ServiceContext } from '../../app/context.ts';
import { tool, type ToolDefinition } from './tool.ts';

function ctxOf(service: ServiceContext | null): ServiceContext {
  if (!service) throw new Error('workspace tool without a workspace context');
  return service;
}

export function mediaTools(media: MediaService): ToolDefinition[] {
  return [
    tool({
      name: 'create_media_upload',
      title: 'Get an upload URL for an image or video',
      scope: 'media:write',
      workspace: true,
      mutates: true,
      description:
        "Reserves a media item and returns `media_id` and `upload` (`signed_url`, `method` PUT, the `headers` to send, `expires_at`, `max_bytes`). The file's bytes must then be PUT to `signed_url` with exactly those headers (no bearer token) — give the user the URL or a curl command. Once uploaded, pass `media_id` in `media_ids` of create_post; get_media shows whether it is `ready`.",
      input: { schema: UploadUrlBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => media.createUpload(ctxOf(service), input.body),
      summarize: (r) => {
        const upload = r.upload as {
          signed_url: string;
          method: string;
          headers: Record<string, string>;
          expires_at: string;
          max_bytes: number;
        };
        const headers = Object.entries(upload.headers)
          .map(([k, v]) => `-H '${k}: ${v}'`)
          .join(' ');
        return `Media ${String(r.media_id)} reserved. Upload the file before ${upload.expires_at} (at most ${upload.max_bytes} bytes):\ncurl -X ${upload.method} ${headers} --data-binary @FILE '${upload.signed_url}'\nThen use media_ids: ["${String(r.media_id)}"] in create_post.`;
      },
    }),
    tool({
      name: 'create_media_from_url',
      title: 'Make a media item from a file at a URL',
      scope: 'media:write',
      workspace: true,
      mutates: true,
      description:
        "Herald fetches the file at `url` (https, public addresses only) and checks it as an upload; returns the media, `processing`. Pass its `id` in `media_ids` of create_post at once: the post's targets wait for the fetch. get_media shows when it is `ready`, or `failed` with `failure_reason`.",
      input: { schema: MediaFromUrlBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async ({ service }, input) => media.createFromUrl(ctxOf(service), input.body),
      summarize: (r) =>
        `Media ${String(r.id)} is being fetched from ${String(r.source_url)}. Use media_ids: ["${String(r.id)}"] in create_post; get_media shows when it is ready.`,
    }),
    tool({
      name: 'get_media',
      title: 'Get a media item',
      scope: 'media:write',
      workspace: true,
      mutates: false,
      id: { argument: 'media_id', description: 'The media id (`med_…`): the `media_id` create_media_upload returns.' },
      description:
        'Returns a media item: its `status` (`pending_upload` until the bytes arrive, `processing` while fetched from a URL, then `ready` or `failed` with `failure_reason`), content type, size, dimensions, duration, video codecs and frame rate, and a short-lived download `url`.',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => media.get(ctxOf(service), input.id!),
      summarize: (r) =>
        `${String(r.id)} · ${String(r.status)}${r.failure_reason ? ` (${String(r.failure_reason)})` : ''} · ${String(r.content_type)} · ${String(r.size_bytes ?? '?')} bytes`,
    }),
  ];
}

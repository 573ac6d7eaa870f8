// How the Facebook simulator shows its objects in Graph answers: Page posts and videos (with the processing
// status computed from the clock), Graph's time format, the `fields` selection and the sandbox's own URLs.
import type { FastifyRequest } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';
import { countFields } from './insights.ts';
import type { FbPost, FbVideo } from './state.ts';

/** Graph's time format: `2026-11-23T17:40:00+0000`. */
export const graphTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');

/** The `fields` a request asks for (none when it names none). */
export const fieldList = (fields: Record<string, unknown>) =>
  String(fields.fields ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);

/** The simulator's own base URL as the client reached it, for permalinks and paging URLs. */
export const baseOf = (request: FastifyRequest, prefix: string) =>
  `${request.protocol}://${request.headers.host}${prefix}`;

/** The public URL of a posted photo's or video's bytes (objects.ts serves them). */
export const mediaUrl = (base: string, mediaId: string) => `${base}/web/media/${mediaId}`;

export function postJson(p: FbPost, fields: string[], base: string, now = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: p.id,
    created_time: graphTime(p.createdAt),
    ...countFields(p, fields, now),
  };
  if (p.message) out.message = p.message;
  if (fields.includes('permalink_url')) out.permalink_url = `${base}/web/${p.pageId}/posts/${p.id.split('_')[1]}`;
  if (fields.includes('link') && p.link) out.link = p.link;
  if (fields.includes('attachments') && (p.photoIds.length > 0 || p.videoId))
    out.attachments = {
      data: [
        {
          type: p.videoId ? 'video_inline' : p.photoIds.length > 1 ? 'album' : 'photo',
          media_count: p.videoId ? 1 : p.photoIds.length,
          // An album lists its photos, as Graph does (the adapter's look-up counts them).
          ...(p.photoIds.length > 1 && {
            subattachments: { data: p.photoIds.map((id) => ({ type: 'photo', target: { id } })) },
          }),
        },
      ],
    };
  return out;
}

type Phase = 'not_started' | 'in_progress' | 'complete' | 'error';

export function videoStatus(
  kit: SimulatorKit,
  v: FbVideo,
): {
  video_status: 'upload_incomplete' | 'processing' | 'ready' | 'error';
  progress: number;
  uploading: Phase;
  processing: Phase;
} {
  if (v.finishedAt === null)
    return {
      video_status: 'upload_incomplete',
      progress: 0,
      uploading: v.received > 0 ? 'in_progress' : 'not_started',
      processing: 'not_started',
    };
  const total = Math.max(1, v.readyAt - v.finishedAt);
  const elapsed = kit.now() - v.finishedAt;
  if (elapsed >= total)
    return v.failed
      ? { video_status: 'error', progress: 100, uploading: 'complete', processing: 'error' }
      : { video_status: 'ready', progress: 100, uploading: 'complete', processing: 'complete' };
  return {
    video_status: 'processing',
    progress: Math.floor((elapsed / total) * 100),
    uploading: 'complete',
    processing: 'in_progress',
  };
}

export function videoJson(kit: SimulatorKit, v: FbVideo, fields: string[], base: string): Record<string, unknown> {
  const s = videoStatus(kit, v);
  const out: Record<string, unknown> = { id: v.id };
  if (fields.includes('status')) {
    out.status = {
      video_status: s.video_status,
      processing_progress: s.progress,
      uploading_phase: { status: s.uploading, bytes_transferred: v.received },
      processing_phase:
        s.processing === 'error'
          ? { status: 'error', errors: [{ code: 1363008, message: v.failed }] }
          : { status: s.processing },
      publishing_phase: {
        status: v.published ? 'complete' : 'not_started',
        publish_status: v.published ? 'published' : 'not_published',
      },
    };
  }
  if (fields.includes('published')) out.published = v.published;
  if (fields.includes('description')) out.description = v.description;
  if (fields.includes('post_id') && v.postId) out.post_id = v.postId;
  if (fields.includes('permalink_url') && v.postId)
    out.permalink_url = `${base}/web/${v.pageId}/posts/${v.postId.split('_')[1]}`;
  return out;
}

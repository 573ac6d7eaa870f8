// TypeBox schemas of the media API: they validate requests, type the handlers and write the OpenAPI document.
import { Type, type Static } from 'typebox';
import { EnumList, named, NullableTimestamp, Timestamp } from '../../app/envelope.ts';
import { DELETED_MEDIA_EXAMPLE, MEDIA_EXAMPLE, UPLOAD_INSTRUCTIONS_EXAMPLE } from './media.examples.ts';
import { Metadata, MetadataInput, MetadataPatch } from '../../app/metadata.ts';
import { IdempotencyKeyField } from '../../app/idempotency-field.ts';
import { FILE_REF_EXAMPLE, FileRefList } from './media.file-refs.ts';
import { UPLOAD_TYPES } from './media.types.ts';

const Status = Type.Union(
  [Type.Literal('pending_upload'), Type.Literal('processing'), Type.Literal('ready'), Type.Literal('failed')],
  {
    description:
      '`pending_upload`: waiting for its bytes; `processing`: being fetched from `source_url`; `ready`: checked and usable; `failed`: see `failure_reason`.',
  },
);
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const UploadUrlBody = Type.Object(
  {
    filename: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The original file name, kept for display and downloads.',
    }),
    content_type: Type.String({
      minLength: 3,
      maxLength: 255,
      description: `The type of the bytes, one of: ${Object.keys(UPLOAD_TYPES)
        .map((t) => `\`${t}\``)
        .join(', ')}. Compared as lower-case type/subtype; parameters are ignored.`,
    }),
    size_bytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'The exact size of the file. Required when the server stores media in S3 (the URL signs it); with local storage, a PUT of any other size is refused.',
      }),
    ),
    metadata: Type.Optional(MetadataInput),
  },
  {
    additionalProperties: false,
    examples: [{ filename: 'launch.png', content_type: 'image/png', size_bytes: 482113 }],
  },
);
export type UploadUrlBody = Static<typeof UploadUrlBody>;

export const MediaFromUrlBody = Type.Object(
  {
    url: Type.String({
      minLength: 8,
      maxLength: 2048,
      format: 'uri',
      description:
        'An `https://` URL Herald fetches the file from (plain `http://` only for hosts in `HERALD_OUTBOUND_ALLOWLIST`). Private and reserved addresses are refused, on every redirect too.',
    }),
    filename: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: "The name kept for display and downloads; default: the URL's last path segment.",
      }),
    ),
    metadata: Type.Optional(MetadataInput),
  },
  {
    additionalProperties: false,
    examples: [{ url: 'https://cdn.example.com/launch.mp4', filename: 'launch.mp4' }],
  },
);
export type MediaFromUrlBody = Static<typeof MediaFromUrlBody>;

/** MediaFromUrlBody over REST, where a caller without headers may send `idempotency_key` (MCP has its own). */
const MediaFromUrlRequestBody = Type.Object(
  { ...MediaFromUrlBody.properties, idempotency_key: IdempotencyKeyField },
  { additionalProperties: false, examples: (MediaFromUrlBody as { examples?: unknown[] }).examples },
);

/** A file a custom GPT action sends (media.file-refs.ts): fetched as media by URL. */
export const MediaFromFileRefBody = Type.Object(
  {
    openaiFileIdRefs: FileRefList(1, 'one file'),
    metadata: Type.Optional(MetadataInput),
    idempotency_key: IdempotencyKeyField,
  },
  { additionalProperties: false },
);
export type MediaFromFileRefBody = Static<typeof MediaFromFileRefBody>;

/** `POST /media`: an upload request (as `POST /media/upload-url`), a URL to fetch, or a file from a GPT action. */
export const CreateMediaBody = Type.Union([UploadUrlBody, MediaFromUrlRequestBody, MediaFromFileRefBody], {
  description:
    'Either an upload request (`filename`, `content_type`, `size_bytes`: answered 201 with an upload URL, as `POST /media/upload-url`), a URL to fetch (`url`, `filename`: answered 202 with the media, `processing`), or one file a custom GPT action sends (`openaiFileIdRefs`: answered 202 as a URL).',
});
export type CreateMediaBody = Static<typeof CreateMediaBody>;

const VideoFacts = Type.Object(
  {
    container: nullable(Type.String({ description: '`mp4`, `mov` or `webm`.' })),
    video_codec: nullable(Type.String({ description: 'As ffprobe names it: `h264`, `hevc`, `vp9`, `av1` …' })),
    audio_codec: nullable(
      Type.String({ description: '`aac`, `mp3`, `opus` …; null when the video has no sound (or it was not read).' }),
    ),
    frame_rate: nullable(Type.Number({ description: 'Frames per second.' })),
    transcodes: Type.Array(
      Type.Object({
        variant_id: Type.String(),
        platform: Type.String({ description: 'The platform whose video rules the transcode meets.' }),
        status: Type.Union([Type.Literal('pending'), Type.Literal('ready'), Type.Literal('failed')]),
        progress: Type.Number({ minimum: 0, maximum: 1, description: 'How far FFmpeg has got, 0 to 1.' }),
        error: nullable(Type.String({ description: 'Why the transcode failed.' })),
      }),
      {
        description:
          'H.264/AAC MP4 variants made with FFmpeg for platforms whose video rules the original breaks, with their progress; the ready ones are also in `variants`.',
      },
    ),
    probed_with: Type.Union([Type.Literal('ffprobe'), Type.Literal('isobmff')], {
      description:
        "`ffprobe` when the server has FFmpeg's ffprobe; `isobmff`: Herald's own MP4/MOV reader (WebM facts unknown).",
    }),
  },
  { title: 'MediaVideoFacts' },
);

export const UploadUrlResult = Type.Object({
  media_id: Type.String({ examples: ['med_01jdq4x1k9m2v7c3r5t8w0yz6b'] }),
  upload: Type.Object({
    signed_url: Type.String({ format: 'uri', description: 'PUT the raw bytes here, without an Authorization header.' }),
    method: Type.Literal('PUT'),
    headers: Type.Record(Type.String(), Type.String(), { description: 'Headers to send with the PUT (Content-Type).' }),
    expires_at: Timestamp,
    max_bytes: Type.Integer({
      description: 'The largest body the URL accepts: the smaller of `size_bytes` and the cap for the kind.',
    }),
  }),
});

/** What fitting will do to one media item on one platform (`POST /posts/validate`, media.variants.ts). */
export const MediaPlan = Type.Object({
  platform: Type.String(),
  media_id: Type.String(),
  result: Type.Union([Type.Literal('original'), Type.Literal('variant'), Type.Literal('refused')], {
    description:
      '`original`: sent as uploaded; `variant`: a copy fitted to the platform is sent; `refused`: it cannot be fitted (the issue says why).',
  }),
  content_type: Type.String({ description: 'What the platform will receive.' }),
  width: Type.Union([Type.Integer(), Type.Null()]),
  height: Type.Union([Type.Integer(), Type.Null()]),
  actions: Type.Array(Type.String(), {
    description: 'In order, e.g. `converted from image/png to image/jpeg`, `scaled to 1440×1080`, `metadata stripped`.',
  }),
});

/** A media item fitted to one platform's rules (media.variants.ts). */
export const MediaVariant = Type.Object({
  platform: Type.String({ description: 'The platform whose rules the variant fits.' }),
  content_type: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  size_bytes: Type.Integer(),
  sha256: Type.String({ description: 'Hex SHA-256 of the variant bytes.' }),
});

export const Media = Type.Object(
  {
    id: Type.String({ examples: ['med_01jdq4x1k9m2v7c3r5t8w0yz6b'] }),
    object: Type.Literal('media'),
    kind: Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('document'), Type.Null()], {
      description: 'Decides the size cap: image, video or document (PDF). Null while a media by URL is `processing`.',
    }),
    filename: Type.String(),
    content_type: nullable(
      Type.String({
        description:
          'The declared type; once `ready`, the bytes were sniffed and match it. For media by URL, the sniffed type (null until known).',
      }),
    ),
    status: Status,
    failure_reason: nullable(
      Type.String({ description: 'Why the media is `failed`, e.g. the bytes are a PNG but video/mp4 was declared.' }),
    ),
    size_bytes: nullable(
      Type.Integer({ description: 'Bytes received; before the upload, the announced `size_bytes` (or null).' }),
    ),
    width: nullable(Type.Integer({ description: 'Pixels; for video, as displayed (rotation applied).' })),
    height: nullable(Type.Integer()),
    duration_ms: nullable(Type.Integer({ description: 'Video duration, read from the MP4/MOV movie header.' })),
    sha256: nullable(Type.String({ description: 'Hex SHA-256 of the bytes.' })),
    video: Type.Union([VideoFacts, Type.Null()], {
      description: 'For a video: what Herald read from it when its bytes were checked; null for other kinds.',
    }),
    source_url: nullable(
      Type.String({ format: 'uri', description: 'For media by URL: the URL the bytes are fetched from.' }),
    ),
    unreadable: Type.Array(Type.Object({ field: Type.String(), reason: Type.String() }), {
      description:
        'Metadata Herald could not read from the bytes (so its field is null), with the reason: e.g. the duration of a WebM video.',
    }),
    metadata: Metadata,
    url: nullable(
      Type.String({ format: 'uri', description: 'A short-lived signed GET URL for the bytes, while `ready`.' }),
    ),
    url_expires_at: NullableTimestamp,
    upload_expires_at: Type.Union([Timestamp, Type.Null()], {
      description: 'While `pending_upload`: when the upload URL stops working.',
    }),
    created_at: Timestamp,
    completed_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the upload was checked (ready or failed).',
    }),
    variants: Type.Array(MediaVariant, {
      description:
        "Copies fitted to a platform's rules (converted, scaled, recompressed, metadata stripped), made when a post first needs them; the original never changes.",
    }),
  },
  { $id: 'Media', title: 'Media' },
);

export const UpdateMediaBody = Type.Object(
  { metadata: Type.Optional(MetadataPatch) },
  {
    additionalProperties: false,
    description: 'What of a media item can change after its upload: its metadata.',
    examples: [{ metadata: { campaign: 'summer', crm_id: null } }],
  },
);
export type UpdateMediaBody = Static<typeof UpdateMediaBody>;

export const MediaIdParams = Type.Object({
  id: Type.String({ maxLength: 200, description: 'The media id (`med_…`).' }),
});

export const ListMediaQuery = Type.Object(
  {
    status: Type.Optional(
      EnumList(
        ['pending_upload', 'processing', 'ready', 'failed'],
        'Media in any of these statuses: `status=ready,failed` or `status=ready&status=failed`.',
      ),
    ),
    kind: Type.Optional(
      EnumList(['image', 'video', 'document'], 'Media of any of these kinds: `kind=image,video` or repeated.'),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'The `next_cursor` of the previous page; only valid with the same filters.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListMediaQuery = Static<typeof ListMediaQuery>;

// Names and examples in the OpenAPI document (docs/conventions.md "Adding an endpoint").
named('Media', Media, MEDIA_EXAMPLE);
named('CreateUploadRequest', UploadUrlBody);
named('CreateMediaFromUrlRequest', MediaFromUrlRequestBody);
named('CreateMediaFromFileRequest', MediaFromFileRefBody, {
  openaiFileIdRefs: [FILE_REF_EXAMPLE],
});
named('CreateMediaRequest', CreateMediaBody);
named('UpdateMediaRequest', UpdateMediaBody);
named('UploadInstructions', UploadUrlResult, UPLOAD_INSTRUCTIONS_EXAMPLE);
named('SignedUpload', UploadUrlResult.properties.upload);
named('MediaVariant', MediaVariant);
export const DeletedMedia = named(
  'DeletedMedia',
  Type.Object({ id: Type.String(), object: Type.Literal('media'), deleted: Type.Literal(true) }),
  DELETED_MEDIA_EXAMPLE,
);

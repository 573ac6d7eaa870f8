// TypeBox schemas of the media API: they validate requests, type the handlers and write the OpenAPI document.
import { Type, type Static } from 'typebox';
import { NullableTimestamp, Timestamp } from '../../app/envelope.ts';
import { UPLOAD_TYPES } from './media.types.ts';

const Kind = Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('document')], {
  description: 'Decides the size cap: image, video or document (PDF).',
});
const Status = Type.Union([Type.Literal('pending_upload'), Type.Literal('ready'), Type.Literal('failed')]);
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
  },
  {
    additionalProperties: false,
    examples: [{ filename: 'launch.png', content_type: 'image/png', size_bytes: 482113 }],
  },
);
export type UploadUrlBody = Static<typeof UploadUrlBody>;

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

export const Media = Type.Object(
  {
    id: Type.String({ examples: ['med_01jdq4x1k9m2v7c3r5t8w0yz6b'] }),
    object: Type.Literal('media'),
    kind: Kind,
    filename: Type.String(),
    content_type: Type.String({ description: 'The declared type; once `ready`, the bytes were sniffed and match it.' }),
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
    unreadable: Type.Array(Type.Object({ field: Type.String(), reason: Type.String() }), {
      description:
        'Metadata Herald could not read from the bytes (so its field is null), with the reason: e.g. the duration of a WebM video.',
    }),
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
  },
  { $id: 'Media', title: 'Media' },
);

export const MediaIdParams = Type.Object({
  id: Type.String({ maxLength: 200, description: 'The media id (`med_…`).' }),
});

const csv = (values: string[], description: string) =>
  Type.String({ pattern: `^(${values.join('|')})(,(${values.join('|')}))*$`, description });

export const ListMediaQuery = Type.Object(
  {
    status: Type.Optional(csv(['pending_upload', 'ready', 'failed'], 'One status or a comma-separated list.')),
    kind: Type.Optional(csv(['image', 'video', 'document'], 'One kind or a comma-separated list.')),
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

// Settings of uploaded media: the storage driver, size caps, signed-URL lifetimes, retention, and the S3 bucket
// (read only when the driver is s3).
import { bool, integer, list, oneOf, text, url } from './parsers.ts';
import { optionalSetting, setting } from './setting.ts';

const MIB = 1024 * 1024;
const WEEK_SECONDS = 7 * 24 * 3600;
// 5 GiB is the most one S3 PUT (and one CopyObject) takes; the local driver keeps the same ceiling.
const uploadCap = integer(1, 5 * 1024 * MIB);

export const MEDIA_STORAGE_DRIVERS = ['local', 's3'] as const;

export const MEDIA_SETTINGS = {
  storage: setting<(typeof MEDIA_STORAGE_DRIVERS)[number]>({
    name: 'HERALD_MEDIA_STORAGE',
    default: 'local',
    parse: oneOf(MEDIA_STORAGE_DRIVERS),
    description:
      'Where uploaded media go: `local` (`$HERALD_DATA_DIR/media`, signed URLs served by Herald; one API host only) or `s3` (any S3-compatible store; needed with more than one API host).',
  }),
  maxImageBytes: setting({
    name: 'HERALD_MEDIA_MAX_IMAGE_BYTES',
    default: 20 * MIB,
    parse: uploadCap,
    description: 'Largest image upload (20 MiB).',
  }),
  maxVideoBytes: setting({
    name: 'HERALD_MEDIA_MAX_VIDEO_BYTES',
    default: 4096 * MIB,
    parse: uploadCap,
    description: 'Largest video upload (4 GiB). Each cap is at most 5 GiB, the most one S3 PUT takes.',
  }),
  maxDocumentBytes: setting({
    name: 'HERALD_MEDIA_MAX_DOCUMENT_BYTES',
    default: 100 * MIB,
    parse: uploadCap,
    description: 'Largest document (PDF) upload (100 MiB).',
  }),
  uploadUrlTtlSeconds: setting({
    name: 'HERALD_MEDIA_UPLOAD_URL_TTL_SECONDS',
    default: 3600,
    parse: integer(60, WEEK_SECONDS),
    description: 'How long a signed upload URL stays valid (60 s to 7 days); the upload must start before it expires.',
  }),
  readUrlTtlSeconds: setting({
    name: 'HERALD_MEDIA_READ_URL_TTL_SECONDS',
    default: 900,
    parse: integer(10, WEEK_SECONDS),
    description: 'How long the signed download URL in a media record (`url`) stays valid (10 s to 7 days).',
  }),
  fetchTimeoutSeconds: setting({
    name: 'HERALD_MEDIA_FETCH_TIMEOUT_SECONDS',
    default: 600,
    parse: integer(1, 6 * 3600),
    description:
      'Media by URL (`POST /v1/media` with `url`): the most one fetch may take, connect to last byte (10 minutes); a slower server fails the media.',
  }),
  actionsFileHosts: setting({
    name: 'HERALD_ACTIONS_FILE_HOSTS',
    default: ['files.oaiusercontent.com'],
    parse: list,
    description:
      'Hosts whose `download_link` Herald fetches for `openaiFileIdRefs` (files a custom GPT action sends, docs/gpt-actions.md): comma-separated hostnames, `.example.com` for any subdomain. Fetched over `https` through the same SSRF guard as media by URL.',
  }),
  conversions: setting({
    name: 'HERALD_MEDIA_CONVERSIONS',
    default: 4,
    parse: integer(1, 64),
    description:
      'Media conversions (images fitted to a platform) one worker process runs at the same time; libvips streams each image in strips.',
  }),
  ffprobe: optionalSetting({
    name: 'HERALD_FFPROBE',
    parse: text,
    description:
      "FFmpeg's `ffprobe`, which reads a video's duration, codecs, size and frame rate at upload: a path, or `off`; unset: the one on the PATH, if any. Without it Herald reads MP4 and MOV itself (WebM facts stay unknown).",
  }),
  ffmpeg: optionalSetting({
    name: 'HERALD_FFMPEG',
    parse: text,
    description:
      "FFmpeg's `ffmpeg`, which transcodes a video outside a platform's rules (codec, container, size, frame rate) to an H.264/AAC MP4 variant: a path, or `off`; unset: the one on the PATH, if any. Without it such a video is refused, naming the rule.",
  }),
  retentionDays: setting({
    name: 'HERALD_MEDIA_RETENTION_DAYS',
    default: 30,
    parse: integer(1, 36_500),
    description:
      'Media that no post refers to are deleted this many days after upload; uploads never completed go once their URL has expired.',
  }),
};

export const S3_SETTINGS = {
  bucket: optionalSetting({
    name: 'HERALD_S3_BUCKET',
    parse: text,
    description: 'Bucket for media with `HERALD_MEDIA_STORAGE=s3` (required then).',
  }),
  endpoint: optionalSetting({
    name: 'HERALD_S3_ENDPOINT',
    parse: url(['http:', 'https:']),
    description: 'Endpoint of an S3-compatible store (R2, MinIO, …); unset: AWS S3.',
  }),
  region: setting({
    name: 'HERALD_S3_REGION',
    default: 'us-east-1',
    parse: text,
    description: 'Region of the bucket (`auto` for R2).',
  }),
  accessKeyId: optionalSetting({
    name: 'HERALD_S3_ACCESS_KEY_ID',
    parse: text,
    description:
      'Access key for the bucket; with the secret below. Both unset: the AWS SDK default credential chain (instance role, `AWS_*` variables).',
  }),
  secretAccessKey: optionalSetting({
    name: 'HERALD_S3_SECRET_ACCESS_KEY',
    parse: text,
    description: 'Secret for `HERALD_S3_ACCESS_KEY_ID`.',
  }),
  forcePathStyle: setting({
    name: 'HERALD_S3_FORCE_PATH_STYLE',
    default: false,
    parse: bool,
    description: '`true` for stores that need `endpoint/bucket/key` addressing (MinIO, most self-hosted stores).',
  }),
};

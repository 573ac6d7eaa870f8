// Examples of the media API as the OpenAPI document shows them (named() in media.schemas.ts and media.routes.ts);
// test/openapi.test.ts checks each against its schema.
const MEDIA_ID = 'med_01jdq4x1k9m2v7c3r5t8w0yz6b';

export const MEDIA_EXAMPLE = {
  id: MEDIA_ID,
  object: 'media',
  kind: 'image',
  filename: 'launch.png',
  content_type: 'image/png',
  status: 'ready',
  failure_reason: null,
  size_bytes: 482113,
  width: 1600,
  height: 900,
  duration_ms: null,
  sha256: '9f2c4e1a7b3d5f6081a2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718',
  video: null,
  source_url: null,
  unreadable: [],
  metadata: {},
  url: `https://herald.example.com/files/0b6f2c1e-4d3a-4f8e-9a7b-5c2d1e0f9a83/${MEDIA_ID}?expires=1764579600&signature=4c1f9e0b2a7d3c58e6f1a0b9c8d7e6f5`,
  url_expires_at: '2026-12-01T09:15:00Z',
  upload_expires_at: null,
  created_at: '2026-11-26T14:10:41Z',
  completed_at: '2026-11-26T14:10:44Z',
  variants: [],
};

export const UPLOAD_INSTRUCTIONS_EXAMPLE = {
  media_id: MEDIA_ID,
  upload: {
    signed_url: `https://herald.example.com/uploads/0b6f2c1e-4d3a-4f8e-9a7b-5c2d1e0f9a83/${MEDIA_ID}?expires=1764166541&signature=8d0e2b7c4a19f3e6d5c8b7a6f5e4d3c2`,
    method: 'PUT',
    headers: { 'Content-Type': 'image/png' },
    expires_at: '2026-11-26T14:25:41Z',
    max_bytes: 482113,
  },
};

export const DELETED_MEDIA_EXAMPLE = { id: MEDIA_ID, object: 'media', deleted: true };

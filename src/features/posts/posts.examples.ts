// Examples of the posts API as the OpenAPI document shows them (named() in posts.schemas.ts and
// posts.view.schemas.ts); test/openapi.test.ts checks each against its schema.
import { MEDIA_EXAMPLE } from '../media/media.examples.ts';

const POST_ID = 'post_01jdq4x1k9m2v7c3r5t8w0yz6b';

export const TARGET_ERROR_EXAMPLE = {
  code: 'PLATFORM_RATE_LIMITED',
  category: 'rate_limit',
  message: 'X answered 429: too many requests for this account.',
  retryable: true,
  platform_status: 429,
  platform_response: '{"title":"Too Many Requests","status":429}',
};

export const TARGET_EXAMPLE = {
  id: 'tgt_01jdq4x1m3a8b2c6d9e0f4g7h1',
  platform: 'x',
  connection_id: 'conn_01jdq4x1k9m2v7c3r5t8w0yz6b',
  sandbox: false,
  status: 'published',
  platform_post_id: '1863214412009431040',
  url: 'https://x.com/herald_hq/status/1863214412009431040',
  published_at: '2026-12-01T09:00:02Z',
  attempt_count: 1,
  next_attempt_at: null,
  attempts: [
    {
      started_at: '2026-12-01T09:00:00Z',
      finished_at: '2026-12-01T09:00:02Z',
      duration_ms: 1840,
      outcome: 'published',
      error_code: null,
    },
  ],
  error: null,
  parts: [
    {
      index: 0,
      kind: 'post',
      status: 'published',
      platform_post_id: '1863214412009431040',
      url: 'https://x.com/herald_hq/status/1863214412009431040',
      error: null,
    },
  ],
};

export const POST_EXAMPLE = {
  id: POST_ID,
  object: 'post',
  workspace_id: '0b6f2c1e-4d3a-4f8e-9a7b-5c2d1e0f9a83',
  brand_id: 'brand_default',
  content: 'Shipping Herald 1.0 today 🚀',
  platforms: ['x'],
  platform_options: {},
  brand_additions: {},
  media: [MEDIA_EXAMPLE],
  status: 'published',
  publish_now: false,
  schedule_at: '2026-12-01T09:00:00Z',
  timezone: null,
  metadata: { crm_id: 'cmp_8812' },
  published_at: '2026-12-01T09:00:02Z',
  created_at: '2026-11-26T14:12:09Z',
  updated_at: '2026-12-01T09:00:02Z',
  created_via: 'api',
  approval: null,
  queue_id: null,
  queue_slot: null,
  recycled_from: null,
  recycle: null,
  targets: [TARGET_EXAMPLE],
};

export const CREATED_POST_EXAMPLE = {
  post_id: POST_ID,
  warnings: [],
  post: {
    ...POST_EXAMPLE,
    status: 'scheduled',
    media: [],
    published_at: null,
    updated_at: '2026-11-26T14:12:09Z',
    targets: [
      {
        ...TARGET_EXAMPLE,
        status: 'scheduled',
        platform_post_id: null,
        url: null,
        published_at: null,
        attempt_count: 0,
        attempts: [],
        parts: [{ index: 0, kind: 'post', status: 'pending', platform_post_id: null, url: null, error: null }],
      },
    ],
  },
};

export const VALIDATE_RESULT_EXAMPLE = {
  valid: false,
  issues: [{ platform: 'x', rule: 'max_length', message: 'Text is 312 characters; X allows 280.', path: '/content' }],
  warnings: [],
  applied: [{ platform: 'x', additions: [], text: 'Shipping Herald 1.0 today 🚀 …' }],
};

export const DELETED_POST_EXAMPLE = { id: POST_ID, object: 'post', deleted: true };

// Examples of the bulk import API for the OpenAPI document (validated against their schemas by the tests).
export const REQUEST_EXAMPLE = { media_id: 'med_01jdq4x1k9m2v7c3r5t8w0yz6b', dry_run: true };

export const DRY_RUN_EXAMPLE = {
  object: 'post_import_dry_run',
  total: 2,
  valid: 1,
  invalid: 1,
  rows: [
    {
      row: 1,
      status: 'ok',
      errors: [],
      preview: { schedule_at: '2026-12-01T09:00:00Z', platforms: [{ platform: 'x', text: 'Launch day 🚀' }] },
    },
    {
      row: 2,
      status: 'error',
      errors: [
        {
          code: 'platform_unknown',
          message: '"myspace" is not a platform Herald publishes to.',
          field: 'platforms',
          platform: null,
        },
      ],
    },
  ],
};

export const IMPORT_EXAMPLE = {
  id: 'imp_01jdq4x1k9m2v7c3r5t8w0yz6b',
  object: 'post_import',
  status: 'completed',
  source: { type: 'csv', media_id: 'med_01jdq4x1k9m2v7c3r5t8w0yz6b' },
  total: 2,
  done: 2,
  created: 1,
  failed: 1,
  rows: [
    { row: 1, status: 'ok', post_id: 'post_01jdq4x1k9m2v7c3r5t8w0yz6b', errors: [] },
    {
      row: 2,
      status: 'error',
      post_id: null,
      errors: [
        { code: 'schedule_in_past', message: 'schedule_at is in the past.', field: 'schedule_at', platform: null },
      ],
    },
  ],
  error: null,
  approval_batch_id: null,
  created_at: '2026-11-26T19:00:00.000Z',
  updated_at: '2026-11-26T19:00:02.000Z',
  completed_at: '2026-11-26T19:00:02.000Z',
};

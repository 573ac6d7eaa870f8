// The signed upload URL, as the OpenAPI document describes it: a callback of the operations that return one
// (`{$response.body#/data/upload/signed_url}`), because the URL is whatever Herald signed (its own
// `/uploads/{workspace}/{media}` with local storage, the object store's with S3), not a path under /v1. The route
// itself: media.transfer.routes.ts; openapi.finish.ts turns `x-herald-callbacks` into the operation's `callbacks`.

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } };

export const UPLOAD_CALLBACK = {
  upload: {
    '{$response.body#/data/upload/signed_url}': {
      put: {
        // No Herald credentials: the signature in the URL is the authorisation.
        security: [],
        summary: 'Upload the bytes to the signed URL',
        description: [
          'PUT the raw bytes of the file to `upload.signed_url`, with the headers in `upload.headers` (its `Content-Type`) and **no** Authorization header: the URL is the credential. It works once, until `upload.expires_at`, for at most `upload.max_bytes` bytes.',
          'With local storage, Herald answers once the bytes are checked: 200 with the media `ready`, or 422 when the bytes are refused (not the declared type, unreadable, or outside the rules; the media is then `failed` with its `failure_reason`, and a new upload URL is needed). With S3 storage the object store answers (its own 200 and XML errors); Herald completes the media when it is next read or attached, or on `POST /media/{id}/complete`.',
        ].join('\n\n'),
        parameters: [
          {
            name: 'Content-Type',
            in: 'header',
            required: true,
            description: 'The `content_type` given when the URL was requested (`upload.headers`).',
            schema: { type: 'string' },
            example: 'image/png',
          },
        ],
        requestBody: {
          required: true,
          description: "The file's bytes, as they are.",
          content: {
            'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
          },
        },
        responses: {
          200: {
            description: 'Local storage: the bytes were received and checked; the media is `ready`.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    success: { const: true },
                    data: { $ref: '#/components/schemas/Media' },
                    request_id: { type: 'string' },
                  },
                  required: ['success', 'data', 'request_id'],
                },
              },
            },
          },
          400: { description: 'Empty body, or a body that does not match `size_bytes`.', content: errorContent },
          403: {
            description:
              'The signature does not match (`PUBLIC_API_SIGNED_URL_INVALID`) or the URL expired (`PUBLIC_API_SIGNED_URL_EXPIRED`).',
            content: errorContent,
          },
          409: {
            description: 'The URL was already used: the media is no longer waiting for bytes.',
            content: errorContent,
          },
          413: { description: 'More bytes than `upload.max_bytes`.', content: errorContent },
          415: { description: 'A `Content-Type` other than the one the URL was issued for.', content: errorContent },
          422: {
            description:
              'The bytes were refused (rule `upload_refused`: not the declared type, unreadable, or outside the rules); the media is now `failed`.',
            content: errorContent,
          },
        },
      },
    },
  },
};

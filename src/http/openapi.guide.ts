// "Getting started": the core flow (schedule a post, list by status, upload media through the signed URL, attach
// it, publish) in curl and in the official client, as Markdown in the description's `info.description`, which
// the reference at /docs renders as its first page.
export function gettingStarted(publicUrl: string): string {
  const api = `${publicUrl}/v1`;
  return `## Getting started

Create a key with \`herald keys create --scopes all\`, then export it with the server's address:

\`\`\`sh
export HERALD_URL=${api}
export HERALD_KEY=hk_live_…
\`\`\`

Every mutating call carries a fresh \`Idempotency-Key\` (a UUID): repeating the call with the same key replays the
first answer instead of acting twice. The official client adds one to every call for you.

### 1. Schedule a post

\`\`\`sh
curl -sS "$HERALD_URL/posts" \\
  -H "Authorization: Bearer $HERALD_KEY" -H "Idempotency-Key: $(uuidgen)" \\
  -H 'Content-Type: application/json' \\
  -d '{"content":"Shipping Herald 1.0 today","platforms":["x","bluesky"],"schedule_at":"2026-12-01T09:00:00Z"}'
\`\`\`

### 2. List the scheduled and failed posts

\`\`\`sh
curl -sS "$HERALD_URL/posts?status=scheduled,failed" -H "Authorization: Bearer $HERALD_KEY"
\`\`\`

\`status\` takes a comma-separated list or repeated parameters (\`status=scheduled&status=failed\`). Pages are
followed with \`cursor=<next_cursor>\`.

### 3. Upload an image through its signed URL

\`\`\`sh
curl -sS "$HERALD_URL/media/upload-url" \\
  -H "Authorization: Bearer $HERALD_KEY" -H "Idempotency-Key: $(uuidgen)" \\
  -H 'Content-Type: application/json' \\
  -d '{"filename":"launch.png","content_type":"image/png","size_bytes":482113}'
# → data.media_id and data.upload.signed_url; PUT the bytes there, with the headers in data.upload.headers
# and no Authorization header:
curl -sS -X PUT "<data.upload.signed_url>" -H 'Content-Type: image/png' --data-binary @launch.png
# Herald's own storage answers the PUT with the checked media. With an S3 bucket behind Herald, the bucket
# answers; then tell Herald the bytes are there:
curl -sS -X POST "$HERALD_URL/media/med_…/complete" \\
  -H "Authorization: Bearer $HERALD_KEY" -H "Idempotency-Key: $(uuidgen)"
\`\`\`

### 4. Attach the media and publish now

\`\`\`sh
curl -sS -X PATCH "$HERALD_URL/posts/post_…" \\
  -H "Authorization: Bearer $HERALD_KEY" -H "Idempotency-Key: $(uuidgen)" \\
  -H 'Content-Type: application/merge-patch+json' -d '{"media_ids":["med_…"]}'
curl -sS -X POST "$HERALD_URL/posts/post_…/publish" \\
  -H "Authorization: Bearer $HERALD_KEY" -H "Idempotency-Key: $(uuidgen)"
\`\`\`

Then watch the post's \`status\` (\`GET /posts/{id}\`), or receive \`post.published\` and \`post.failed\` on a
webhook endpoint.

### The same flow with the official client

\`\`\`ts
import { createHerald } from '@herald/client';

declare const heraldKey: string; // the API key, shown once when it was made: from your secrets store, not the source

const herald = createHerald({ baseUrl: '${publicUrl}', apiKey: heraldKey });

const { post_id } = await herald.POST('/posts', {
  body: { content: 'Shipping Herald 1.0 today', platforms: ['x', 'bluesky'], schedule_at: '2026-12-01T09:00:00Z' },
});
for await (const post of herald.list('/posts', { params: { query: { status: ['scheduled', 'failed'] } } })) {
  console.log(post.id, post.status);
}
const media = await herald.uploadFile('./launch.png', { contentType: 'image/png' });
await herald.PATCH('/posts/{id}', { params: { path: { id: post_id } }, body: { media_ids: [media.id] } });
await herald.POST('/posts/{id}/publish', { params: { path: { id: post_id } } });
\`\`\`

The client sets \`Idempotency-Key\` on every mutating call, retries 409 (with \`Retry-After\`), 429 and 5xx
answers safely, and throws a \`HeraldError\` carrying \`code\`, \`details\` and \`request_id\`.`;
}

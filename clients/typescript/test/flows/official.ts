// The core flow through the packed @herald/client, as a user's project runs it: type-checked under `tsc --strict`
// and run by test/tools/client.test.ts against a running Herald (a test workspace, whose simulators publish).
// Prints one JSON line of what it saw.
import { createReadStream } from 'node:fs';
import { createHerald, HeraldError, type Post } from '@herald/client';

const herald = createHerald({ baseUrl: process.env.HERALD_URL!, apiKey: process.env.HERALD_KEY! });
const image = process.env.HERALD_IMAGE!;

// 1. A post scheduled an hour from now.
const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
const created = await herald.POST('/posts', {
  body: { content: 'Launch day: the official client works', platforms: ['x'], schedule_at: inAnHour },
});
const id: string = created.post_id;

// 2. Listed by status, through every page (a page size of one makes the iterator follow the cursor).
const scheduled: string[] = [];
for await (const post of herald.list('/posts', { params: { query: { status: ['scheduled'], limit: 1 } } })) {
  scheduled.push(post.id);
}

// 3. An image uploaded through the signed URL, from a path; and one from a Node stream.
const media = await herald.uploadFile(image, { contentType: 'image/png' });
const streamed = await herald.uploadFile(createReadStream(image), { contentType: 'image/png', filename: 'b.png' });

// 4. Attached to the post.
const patched: Post = await herald.PATCH('/posts/{id}', {
  params: { path: { id } },
  body: { media_ids: [media.id] },
});

// 5. Published now, and read back until it is out.
await herald.POST('/posts/{id}/publish', { params: { path: { id } } });
let post = await herald.GET('/posts/{id}', { params: { path: { id } } });
for (const started = Date.now(); post.status !== 'published' && Date.now() - started < 60_000;) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  post = await herald.GET('/posts/{id}', { params: { path: { id } } });
}

// 6. A refused call is a typed exception.
let refused: { status: number; code: string; request_id: string | null } | null = null;
try {
  await herald.GET('/posts/{id}', { params: { path: { id: 'post_doesnotexist' } } });
} catch (error) {
  if (error instanceof HeraldError) refused = { status: error.status, code: error.code, request_id: error.request_id };
}

console.log(
  JSON.stringify({
    id,
    createdStatus: created.post.status,
    scheduled,
    media: { id: media.id, status: media.status },
    streamed: { id: streamed.id, status: streamed.status },
    attached: patched.media.map((m) => m.id),
    status: post.status,
    targets: post.targets.map((t) => ({ platform: t.platform, status: t.status, url: t.url })),
    refused,
  }),
);

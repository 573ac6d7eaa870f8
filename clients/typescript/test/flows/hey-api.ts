// The same core flow through a client that @hey-api/openapi-ts generates from the description Herald serves,
// so the description is not tuned to one generator. test/tools/client.test.ts generates it into `./generated`
// beside this file, type-checks both under `tsc --strict` and runs the result. Prints one JSON line.
import { readFile } from 'node:fs/promises';
import { client } from './generated/client.gen.js';
import { createMediaUploadUrl, createPost, getPost, listPosts, publishPost, updatePost } from './generated/sdk.gen.js';

client.setConfig({ baseUrl: `${process.env.HERALD_URL!}/v1`, auth: () => process.env.HERALD_KEY! });
const key = () => ({ 'Idempotency-Key': crypto.randomUUID() });

// 1. A post scheduled an hour from now.
const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
const created = await createPost({
  body: { content: 'Launch day: the generated client works', platforms: ['x'], schedule_at: inAnHour },
  headers: key(),
  throwOnError: true,
});
const id: string = created.data.data.post_id;

// 2. Listed by status, following the cursor.
const scheduled: string[] = [];
for (let cursor: string | undefined; ;) {
  const page = await listPosts({ query: { status: ['scheduled'], limit: 1, cursor }, throwOnError: true });
  scheduled.push(...page.data.data.items.map((p) => p.id));
  if (!page.data.data.next_cursor) break;
  cursor = page.data.data.next_cursor;
}

// 3. An image uploaded through the signed URL, with the headers Herald names and no bearer token.
const bytes = await readFile(process.env.HERALD_IMAGE!);
const ticket = await createMediaUploadUrl({
  body: { filename: 'a.png', content_type: 'image/png', size_bytes: bytes.length },
  headers: key(),
  throwOnError: true,
});
const upload = ticket.data.data.upload;
const put = await fetch(upload.signed_url, { method: upload.method, headers: upload.headers, body: bytes });
const uploaded = (await put.json()) as { data: { id: string; status: string } };

// 4. Attached to the post.
const patched = await updatePost({
  path: { id },
  body: { media_ids: [ticket.data.data.media_id] },
  headers: key(),
  throwOnError: true,
});

// 5. Published now, and read back until it is out.
await publishPost({ path: { id }, headers: key(), throwOnError: true });
let post = (await getPost({ path: { id }, throwOnError: true })).data.data;
for (const started = Date.now(); post.status !== 'published' && Date.now() - started < 60_000;) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  post = (await getPost({ path: { id }, throwOnError: true })).data.data;
}

console.log(
  JSON.stringify({
    id,
    createdStatus: created.data.data.post.status,
    scheduled,
    media: { id: uploaded.data.id, status: uploaded.data.status, put: put.status },
    attached: patched.data.data.media.map((m) => m.id),
    status: post.status,
    targets: post.targets.map((t) => ({ platform: t.platform, status: t.status, url: t.url })),
  }),
);

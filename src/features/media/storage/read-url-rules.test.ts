// The rules the Meta simulators fetch media by (src/sandbox/meta/fetch.ts) accept exactly the URLs the storage
// drivers sign: the local `/files/…` URL, and the S3 presigned URL in each addressing style.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mayFetch } from '../../../sandbox/meta/fetch.ts';
import type { Config, S3Config } from '../../../config.ts';
import { createLocalStorage } from './local.ts';
import { signedReadUrlRules } from './read-url-rules.ts';
import { createS3Storage } from './s3.ts';

const ws = '0b6f7f4e-2f55-4c1b-9c36-0f4f3f7b1e2a';
const med = 'med_01jabcdefghjkmnpqrstvwxyz0';
const expiresAt = new Date(Date.now() + 60_000);

function media(storage: Config['media']['storage'], s3?: S3Config): Config['media'] {
  return { storage, s3, localDir: '/tmp', maxBytes: { image: 1, video: 1, document: 1 } } as Config['media'];
}

test('the local driver’s signed read URL is allowed; the same host elsewhere is not', async () => {
  const publicUrl = 'https://herald.example:8443/base';
  const settings = { mediaFetchUrls: signedReadUrlRules({ publicUrl, media: media('local') }) };
  const storage = createLocalStorage({ dir: '/tmp', publicUrl, keyring: { current: 'k'.repeat(32), previous: [] } });
  const url = await storage.signRead({
    workspaceId: ws,
    mediaId: med,
    storageKey: `${ws}/${med}`,
    contentType: 'image/jpeg',
    filename: 'a.jpg',
    expiresAt,
  });
  assert.equal(mayFetch(new URL(url), settings), true, url);
  for (const other of [
    url.replace(':8443', ':8444'),
    url.replace('https:', 'http:'),
    url.replace('/base/files/', '/files/'),
    url.replace(`/${med}`, `/${med}/x`),
    url.replace(/signature=[^&]+/, ''),
    'https://herald.example:8443/base/v1/webhooks',
  ])
    assert.equal(mayFetch(new URL(other), settings), false, other);
});

test('the S3 driver’s presigned URLs are allowed in every addressing style', async () => {
  for (const s3 of [
    { region: 'eu-west-3', endpoint: undefined, forcePathStyle: false },
    { region: 'us-east-1', endpoint: undefined, forcePathStyle: true },
    { region: 'auto', endpoint: 'https://acct.r2.cloudflarestorage.com', forcePathStyle: false },
    { region: 'us-east-1', endpoint: 'http://127.0.0.1:9000', forcePathStyle: true },
  ]) {
    const config: S3Config = { bucket: 'my-bucket', accessKeyId: 'a', secretAccessKey: 'b', ...s3 };
    const settings = {
      mediaFetchUrls: signedReadUrlRules({ publicUrl: 'https://herald.example', media: media('s3', config) }),
    };
    const url = await createS3Storage(config).signRead({
      workspaceId: ws,
      mediaId: med,
      storageKey: `media/${ws}/${med}/${ws}`,
      contentType: 'image/jpeg',
      filename: 'a.jpg',
      expiresAt,
    });
    assert.equal(mayFetch(new URL(url), settings), true, url);
    assert.equal(mayFetch(new URL(url.replace('my-bucket', 'other-bucket')), settings), false, url);
  }
});

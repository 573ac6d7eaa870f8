// Media settings (src/config.ts): defaults, the s3 driver's requirements, and bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ConfigError, loadConfig } from '../src/config.ts';
import { inlineDisposition } from '../src/features/media/content-disposition.ts';

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
};

test('defaults: local storage under the data dir, caps of 20 MiB / 4 GiB / 100 MiB, 1 h upload URLs, 30 days', () => {
  const { media } = loadConfig({ HERALD_DATA_DIR: '/srv/herald' });
  assert.equal(media.storage, 'local');
  assert.equal(media.localDir, path.join('/srv/herald', 'media'));
  assert.deepEqual(media.maxBytes, { image: 20 * 1024 ** 2, video: 4 * 1024 ** 3, document: 100 * 1024 ** 2 });
  assert.equal(media.uploadUrlTtlSeconds, 3600);
  assert.equal(media.readUrlTtlSeconds, 900);
  assert.equal(media.retentionDays, 30);
  assert.equal(media.s3, undefined);
});

test('the s3 driver needs a bucket, and access key and secret together', () => {
  assert.deepEqual(problems({ HERALD_MEDIA_STORAGE: 's3' }), [
    'HERALD_S3_BUCKET is required when HERALD_MEDIA_STORAGE is s3',
  ]);
  assert.match(
    problems({ HERALD_MEDIA_STORAGE: 's3', HERALD_S3_BUCKET: 'b', HERALD_S3_ACCESS_KEY_ID: 'k' })[0]!,
    /go together/,
  );
  const { media } = loadConfig({
    HERALD_MEDIA_STORAGE: 's3',
    HERALD_S3_BUCKET: 'b',
    HERALD_S3_ENDPOINT: 'http://minio:9000',
    HERALD_S3_FORCE_PATH_STYLE: 'true',
  });
  assert.deepEqual(media.s3, {
    bucket: 'b',
    endpoint: 'http://minio:9000',
    region: 'us-east-1',
    accessKeyId: undefined,
    secretAccessKey: undefined,
    forcePathStyle: true,
  });
});

test('bad values are reported together: unknown driver, caps over 5 GiB, TTLs out of range', () => {
  const found = problems({
    HERALD_MEDIA_STORAGE: 'ftp',
    HERALD_MEDIA_MAX_VIDEO_BYTES: String(6 * 1024 ** 3),
    HERALD_MEDIA_UPLOAD_URL_TTL_SECONDS: '10',
    HERALD_S3_FORCE_PATH_STYLE: 'yes',
  });
  assert.equal(found.length, 3, found.join('\n')); // FORCE_PATH_STYLE is only read for s3
  assert.match(found.join('\n'), /HERALD_MEDIA_STORAGE/);
  assert.match(found.join('\n'), /HERALD_MEDIA_MAX_VIDEO_BYTES/);
  assert.match(found.join('\n'), /HERALD_MEDIA_UPLOAD_URL_TTL_SECONDS/);
});

test('downloads keep the original file name, safely quoted', () => {
  assert.equal(
    inlineDisposition('launch day.png'),
    `inline; filename="launch day.png"; filename*=UTF-8''launch%20day.png`,
  );
  assert.equal(
    inlineDisposition('été "final" (v2).jpg'),
    `inline; filename="_t_ _final_ (v2).jpg"; filename*=UTF-8''%C3%A9t%C3%A9%20%22final%22%20%28v2%29.jpg`,
  );
});

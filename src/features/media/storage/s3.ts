// The s3 storage driver, for AWS S3 and S3-compatible stores (R2, MinIO …). Clients PUT straight to the store
// through a presigned URL that signs Content-Type and Content-Length, so the store itself refuses other bytes;
// Herald then checks the object, copies it to an immutable key and deletes the upload key (see media.complete.ts).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../../../config.ts';
import { inlineDisposition } from '../content-disposition.ts';
import type { ByteReader } from '../sniff/byte-reader.ts';
import type { S3Storage } from './storage.ts';

/** Presign options that make the URL expire exactly at `when` (X-Amz-Date + X-Amz-Expires). */
function expiringAt(when: Date): { signingDate: Date; expiresIn: number } {
  const signingDate = new Date(Math.floor(Date.now() / 1000) * 1000);
  return { signingDate, expiresIn: Math.max(1, Math.round((when.getTime() - signingDate.getTime()) / 1000)) };
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string })?.name;
  return name === 'NotFound' || name === 'NoSuchKey' || statusOf(error) === 404;
}

/**
 * The AWS SDK is loaded on first use, not at start: it costs some 45 MiB of RSS and 0.2 s of start-up, and an
 * installation on local storage never needs it (the start-up benchmark, bench/startup.ts, measures both).
 */
async function loadSdk() {
  const [sdk, presigner] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner')]);
  return { ...sdk, getSignedUrl: presigner.getSignedUrl };
}

export function createS3Storage(config: S3Config): S3Storage {
  let loaded: Promise<{ sdk: Awaited<ReturnType<typeof loadSdk>>; client: S3Client }> | undefined;
  const s3 = () => (loaded ??= loadSdk().then((sdk) => ({ sdk, client: makeClient(sdk.S3Client) })));
  const makeClient = (Client: typeof S3Client) =>
    new Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials:
        config.accessKeyId && config.secretAccessKey
          ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
          : undefined,
      // The SDK's default would add a CRC32 of an empty body to presigned PUT URLs, which any real upload then fails;
      // many S3-compatible stores also lack the newer checksum headers. Checksums only where the API requires them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  const Bucket = config.bucket;

  async function get(key: string, range?: string): Promise<Readable> {
    const { sdk, client } = await s3();
    const result = await client.send(new sdk.GetObjectCommand({ Bucket, Key: key, Range: range }));
    return result.Body as Readable;
  }

  return {
    driver: 's3',

    async signUpload(ticket) {
      const { sdk, client } = await s3();
      const command = new sdk.PutObjectCommand({
        Bucket,
        Key: ticket.uploadKey,
        ContentType: ticket.contentType,
        ContentLength: ticket.declaredSize,
      });
      const url = await sdk.getSignedUrl(client, command, {
        ...expiringAt(ticket.expiresAt),
        signableHeaders: new Set(['content-type', 'content-length']),
      });
      return { url, headers: { 'Content-Type': ticket.contentType } };
    },

    async signRead(ticket) {
      const { sdk, client } = await s3();
      const command = new sdk.GetObjectCommand({
        Bucket,
        Key: ticket.storageKey,
        ResponseContentType: ticket.contentType,
        ResponseContentDisposition: inlineDisposition(ticket.filename),
      });
      return sdk.getSignedUrl(client, command, expiringAt(ticket.expiresAt));
    },

    open: (key, range) => get(key, range ? `bytes=${range.start}-${range.end}` : undefined),

    async reader(key, size) {
      const reader: ByteReader & { close(): Promise<void> } = {
        size,
        async read(offset, length) {
          const end = Math.min(offset + length, size) - 1;
          if (end < offset) return Buffer.alloc(0);
          const body = await get(key, `bytes=${offset}-${end}`);
          const chunks: Buffer[] = [];
          for await (const chunk of body) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks);
        },
        close: async () => {},
      };
      return reader;
    },

    async stat(key) {
      const { sdk, client } = await s3();
      try {
        const head = await client.send(new sdk.HeadObjectCommand({ Bucket, Key: key }));
        return { size: head.ContentLength ?? 0, etag: head.ETag ?? null };
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },

    async remove(key) {
      const { sdk, client } = await s3();
      try {
        await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: key }));
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },

    variantKey: (workspaceId, mediaId, variantId) => `media/${workspaceId}/${mediaId}/variants/${variantId}`,

    async put(key, data, contentType) {
      const { sdk, client } = await s3();
      await client.send(new sdk.PutObjectCommand({ Bucket, Key: key, Body: data, ContentType: contentType }));
    },

    async copy(fromKey, toKey, etag) {
      const { sdk, client } = await s3();
      try {
        await client.send(
          new sdk.CopyObjectCommand({
            Bucket,
            Key: toKey,
            CopySource: `${Bucket}/${fromKey.split('/').map(encodeURIComponent).join('/')}`,
            // Only the object that was measured: a PUT replayed in between makes the copy fail, not succeed silently.
            CopySourceIfMatch: etag ?? undefined,
            MetadataDirective: 'COPY',
          }),
        );
        return 'copied';
      } catch (error) {
        if (isNotFound(error)) return 'source_gone';
        if (statusOf(error) === 412 || (error as { name?: string })?.name === 'PreconditionFailed')
          return 'source_changed';
        throw error;
      }
    },

    async putFile(key, file, size, contentType) {
      const { sdk, client } = await s3();
      await client.send(
        new sdk.PutObjectCommand({
          Bucket,
          Key: key,
          Body: createReadStream(file),
          ContentLength: size,
          ContentType: contentType,
        }),
      );
    },

    async hash(key) {
      const digest = createHash('sha256');
      for await (const chunk of await get(key)) digest.update(chunk as Buffer);
      return digest.digest('hex');
    },
  };
}

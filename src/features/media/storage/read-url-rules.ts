// Where Herald's signed read URLs live, described for the Meta simulators (src/sandbox/meta/fetch.ts): they fetch
// a container's media only from URLs of this exact scheme, host, port, path prefix and shape, so a simulator
// token cannot make Herald GET any other address. Kept next to the drivers that sign these URLs.
import type { Config } from '../../../config.ts';
import { FILES_PATH } from './local.ts';

/** Same shape as the sandbox's `MediaUrlRule` (plain data: features and the sandbox share no module). */
export interface SignedReadUrlRule {
  prefix: string;
  path: RegExp;
  query: readonly string[];
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const MEDIA_ID = 'med_[0-9a-z]{26}';

/** The rules for the configured storage driver: `/files/<workspace>/<media>` or the bucket's `media/…` keys. */
export function signedReadUrlRules(config: Pick<Config, 'publicUrl' | 'media'>): SignedReadUrlRule[] {
  const s3 = config.media.s3;
  if (config.media.storage !== 's3' || !s3)
    return [
      {
        prefix: `${config.publicUrl}${FILES_PATH}/`,
        path: new RegExp(`^${UUID}/${MEDIA_ID}$`),
        query: ['expires', 'signature'],
      },
    ];
  // As the AWS SDK presigns (src/features/media/storage/s3.ts): path style under the endpoint, or the bucket as a
  // subdomain of it; AWS itself when no endpoint is set. Keys are `media/<workspace>/<media>/<uuid>`.
  const endpoint = new URL(s3.endpoint ?? `https://s3.${s3.region}.amazonaws.com`);
  const base = endpoint.pathname.replace(/\/+$/, '');
  const prefix = s3.forcePathStyle
    ? `${endpoint.protocol}//${endpoint.host}${base}/${s3.bucket}/`
    : `${endpoint.protocol}//${s3.bucket}.${endpoint.host}${base}/`;
  return [{ prefix, path: new RegExp(`^media/${UUID}/${MEDIA_ID}/${UUID}$`), query: ['X-Amz-Signature'] }];
}

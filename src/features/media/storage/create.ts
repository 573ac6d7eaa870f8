// Picks the storage driver the configuration names.
import type { Config } from '../../../config.ts';
import type { SecretKeyring } from '../../../lib/crypto.ts';
import { createLocalStorage } from './local.ts';
import { createS3Storage } from './s3.ts';
import type { MediaStorage } from './storage.ts';

export function createMediaStorage(config: Config, keyring: SecretKeyring): MediaStorage {
  if (config.media.storage === 's3') return createS3Storage(config.media.s3!);
  return createLocalStorage({ dir: config.media.localDir, publicUrl: config.publicUrl, keyring });
}

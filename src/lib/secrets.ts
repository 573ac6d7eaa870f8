// Where the server's secret key comes from: HERALD_SECRET_KEY, or — for the embedded default only — a key
// generated once into the data dir (with a warning, since losing it means losing every encrypted token).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateSecretKey, type SecretKeyring } from './crypto.ts';
import type { Logger } from './logger.ts';

/** The settings the keyring comes from (a slice of the config, so that lib/ does not depend on config.ts). */
export interface KeyringSettings {
  secretKey: string | undefined;
  previousSecretKeys: string[];
  dataDir: string;
}

export async function resolveKeyring(config: KeyringSettings, logger: Pick<Logger, 'warn'>): Promise<SecretKeyring> {
  if (config.secretKey) return { current: config.secretKey, previous: config.previousSecretKeys };
  const file = path.join(config.dataDir, 'secret.key');
  let secret: string;
  try {
    secret = (await readFile(file, 'utf8')).trim();
  } catch {
    await mkdir(config.dataDir, { recursive: true });
    secret = generateSecretKey();
    // 'wx': if another process generated it first, use theirs.
    await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch(async () => {
      secret = (await readFile(file, 'utf8')).trim();
    });
    logger.warn(
      `HERALD_SECRET_KEY is not set: generated one into ${file}. Back it up, or set HERALD_SECRET_KEY; without it encrypted data cannot be read.`,
    );
  }
  return { current: secret, previous: config.previousSecretKeys };
}

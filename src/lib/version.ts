// Herald's version: the `version` of the package.json it ships with, read once. `herald --version`,
// /health/live and the herald_build_info metric all report it.
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function heraldVersion(): string {
  if (cached === undefined) {
    const raw = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    const version = (JSON.parse(raw) as { version?: unknown }).version;
    cached = typeof version === 'string' && version !== '' ? version : 'unknown';
  }
  return cached;
}

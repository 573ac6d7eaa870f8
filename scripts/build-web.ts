// Builds the dashboard (web/) into web/dist, which Herald serves at /app (docs/dashboard.md). Run by `npm install`
// and `npm ci` (the `prepare` script) and by `npm run build:web`. It skips when web/dist was built from the same
// sources (a hash of them is kept in web/dist/.build-hash), so a second install or any start costs nothing, and
// says so plainly when Vite is absent (an install with --omit=dev) instead of failing the install.
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type * as Vite from 'vite';

const ROOT = path.resolve(import.meta.dirname, '..');
const WEB = path.join(ROOT, 'web');
const DIST = path.join(WEB, 'dist');
const STAMP = path.join(DIST, '.build-hash');
/** What the bundle is made of: the dashboard, the official client it compiles in, and the build tools' versions. */
const SOURCES = [path.join(WEB, 'index.html'), path.join(WEB, 'vite.config.ts'), path.join(WEB, 'src')];
const CLIENT_SOURCES = path.join(ROOT, 'clients', 'typescript', 'src');
const TOOLS = [
  'vite',
  '@vitejs/plugin-react',
  'react',
  'react-dom',
  'react-router',
  'radix-ui',
  'openapi-fetch',
  'recharts',
];

async function filesUnder(entry: string): Promise<string[]> {
  const found = await readdir(entry, { withFileTypes: true, recursive: true }).catch(() => undefined);
  if (!found) return [entry];
  return found
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name))
    .filter((file) => !file.includes(`${path.sep}cli${path.sep}`));
}

/** One hash over every source file's path and bytes, and the versions of the tools that build them. */
export async function sourceHash(): Promise<string> {
  const hash = createHash('sha256');
  const files = (await Promise.all([...SOURCES, CLIENT_SOURCES].map(filesUnder))).flat().sort();
  for (const file of files) {
    hash.update(path.relative(ROOT, file));
    hash.update(await readFile(file));
  }
  for (const tool of TOOLS) {
    const manifest = await readFile(path.join(ROOT, 'node_modules', tool, 'package.json'), 'utf8').catch(() => '{}');
    hash.update(`${tool}@${(JSON.parse(manifest) as { version?: string }).version ?? 'absent'}`);
  }
  return hash.digest('hex');
}

export async function buildWeb(options: { force?: boolean } = {}): Promise<'built' | 'fresh' | 'no-vite'> {
  const wanted = await sourceHash();
  const built = await readFile(STAMP, 'utf8').catch(() => '');
  if (!options.force && built.trim() === wanted) {
    console.log('dashboard: web/dist is up to date');
    return 'fresh';
  }
  let vite: typeof Vite;
  try {
    vite = await import('vite');
  } catch {
    console.log(
      'dashboard: Vite is not installed (an install without dev dependencies?), so web/dist was not built and ' +
        '/app says how to build it. Run `npm ci` then `npm run build:web`.',
    );
    return 'no-vite';
  }
  const started = performance.now();
  await vite.build({ configFile: path.join(WEB, 'vite.config.ts'), logLevel: 'warn' });
  await writeFile(STAMP, `${wanted}\n`);
  console.log(`dashboard: built web/dist in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return 'built';
}

if (import.meta.main) {
  buildWeb({ force: process.argv.includes('--force') }).catch((error: unknown) => {
    console.error('dashboard: the build failed:', error);
    process.exitCode = 1;
  });
}

// Scaffolds a new platform: `node scripts/new-platform.ts <name> [--display "TikTok"]`.
//
// Writes the adapter (src/platforms/<name>/), its simulator (src/sandbox/<name>/), docs/platforms/<name>.md, and
// adds the platform to every registry src/platforms/README.md lists: PLATFORM_NAMES, the adapters, the limits
// catalogue, the simulators, the OAuth app settings (and the configuration tables generated from them), the API
// host and consent host, the posts API's `platform_options`, the MCP catalogue tool's description. The result
// typechecks, lints and publishes a text post (and passes the shared adapter contract) against its simulator: a
// generic placeholder API that stands in for the platform's. Everything platform-specific is marked `FILL IN:`
// (`grep -rn "FILL IN:" src docs`); src/platforms/README.md explains the fill-in.
//
// All or nothing: new files are written to a temporary directory first, every edit is computed (and every anchor
// found) before anything is written, and any failure after that restores the files it changed and removes the
// files it created.
//
// This entry parses the arguments and runs that transaction; the names, the templates of the new files and the
// edits of existing ones are in scripts/new-platform/.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as prettier from 'prettier';
import { adapterFiles } from './new-platform/adapter-templates.ts';
import { docFiles } from './new-platform/doc-template.ts';
import { fill, MARKER, namesOf, ScaffoldError, type Names } from './new-platform/names.ts';
import { edits, platformNamesIn } from './new-platform/registry-edits.ts';
import { simulatorFiles } from './new-platform/simulator-templates.ts';

export { MARKER, namesOf, ScaffoldError, type Names } from './new-platform/names.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Every file to create, path → content: the adapter, the simulator, the platform's page. */
function newFiles(n: Names): Record<string, string> {
  const p = n.name;
  return Object.fromEntries(
    Object.entries({ ...adapterFiles(p), ...simulatorFiles(p), ...docFiles(p) }).map(([file, template]) => [
      file,
      fill(template, n),
    ]),
  );
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

async function format(root: string, file: string, text: string): Promise<string> {
  const options = (await prettier.resolveConfig(path.join(root, file))) ?? {};
  return prettier.format(text, { ...options, filepath: path.join(root, file) });
}

/** Moves a staged file into place, across file systems if need be. */
async function move(from: string, to: string): Promise<void> {
  await mkdir(path.dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await cp(from, to);
  }
}

const runNode = (root: string, args: string[]) =>
  execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export interface ScaffoldResult {
  created: string[];
  edited: string[];
}

export async function scaffold(root: string, name: string, display?: string): Promise<ScaffoldResult> {
  const n = namesOf(name, display);
  const platformNames = platformNamesIn(await readFile(path.join(root, 'src/platforms/limits.ts'), 'utf8'));
  if (platformNames.includes(name)) throw new ScaffoldError(`${name} is already a platform (PLATFORM_NAMES).`);
  const files = newFiles(n);
  for (const target of [`src/platforms/${name}`, `src/sandbox/${name}`, ...Object.keys(files)])
    if (await exists(path.join(root, target)))
      throw new ScaffoldError(`${target} already exists: ${name} is taken (remove it first to scaffold again).`);

  // Every edit computed, and every anchor found, before anything is written.
  const originals = new Map<string, string>();
  const changed = new Map<string, string>();
  for (const edit of edits(n, platformNames)) {
    const before = changed.get(edit.file) ?? (await readFile(path.join(root, edit.file), 'utf8'));
    if (!originals.has(edit.file)) originals.set(edit.file, before);
    changed.set(edit.file, edit.apply(before));
  }
  for (const [file, text] of changed) changed.set(file, await format(root, file, text));
  // The configuration tables generated from the settings (README, docs/api.md) are regenerated once written.
  for (const file of ['README.md', 'docs/api.md']) originals.set(file, await readFile(path.join(root, file), 'utf8'));
  const configTableBefore = runNode(root, ['scripts/config-table.ts']).trimEnd();
  if (!originals.get('README.md')!.includes(configTableBefore))
    throw new ScaffoldError(
      'README.md does not hold the output of `node scripts/config-table.ts`; regenerate it first (nothing was written).',
    );

  const stage = await mkdtemp(path.join(os.tmpdir(), `herald-new-platform-${name}-`));
  const created: string[] = [];
  try {
    for (const [file, text] of Object.entries(files)) {
      const target = path.join(stage, file);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, await format(root, file, text));
    }
    try {
      for (const dir of [`src/platforms/${name}`, `src/sandbox/${name}`, `docs/platforms/${name}.md`]) {
        if (dir.endsWith('.md') && !(await exists(path.join(root, 'docs/platforms')))) created.push('docs/platforms');
        created.push(dir);
        await move(path.join(stage, dir), path.join(root, dir));
      }
      for (const [file, text] of changed) {
        const tmp = path.join(root, `${file}.new-platform.tmp`);
        await writeFile(tmp, text);
        await rename(tmp, path.join(root, file));
      }
      runNode(root, ['scripts/api-tables.ts', '--write']);
      const configTableAfter = runNode(root, ['scripts/config-table.ts']).trimEnd();
      await writeFile(
        path.join(root, 'README.md'),
        originals.get('README.md')!.replace(configTableBefore, () => configTableAfter),
      );
    } catch (error) {
      // Back to the tree as it was: the changed files restored, the created ones removed.
      for (const [file, text] of originals) await writeFile(path.join(root, file), text);
      for (const file of changed.keys()) await rm(path.join(root, `${file}.new-platform.tmp`), { force: true });
      for (const file of created.reverse()) await rm(path.join(root, file), { recursive: true, force: true });
      const detail = (error as { stderr?: string }).stderr;
      throw new ScaffoldError(
        `Scaffolding ${name} failed, and the tree was restored: ${(error as Error).message}${detail ? `\n${detail}` : ''}`,
      );
    }
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  return {
    created: Object.keys(files),
    edited: [...changed.keys(), 'README.md', 'docs/api.md'],
  };
}

function usage(): never {
  console.error('usage: node scripts/new-platform.ts <name> [--display "Display Name"]');
  console.error('  <name>: lowercase letters and digits (tiktok, youtube, pinterest, googlebusiness)');
  process.exit(2);
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  let display: string | undefined;
  const i = args.indexOf('--display');
  if (i >= 0) {
    display = args[i + 1];
    if (display === undefined) usage();
    args.splice(i, 2);
  }
  if (args.length !== 1 || args[0]!.startsWith('-')) usage();
  try {
    const result = await scaffold(ROOT, args[0]!, display);
    console.log(`Scaffolded ${args[0]}.\n\nCreated:\n${result.created.map((f) => `  ${f}`).join('\n')}`);
    console.log(`\nEdited:\n${result.edited.map((f) => `  ${f}`).join('\n')}`);
    console.log(
      `\nNext: fill in every "${MARKER}" (grep -rn "${MARKER}" src docs), run` +
        ` node --test src/platforms/${args[0]}/${args[0]}.test.ts, and see src/platforms/README.md.`,
    );
  } catch (error) {
    if (!(error instanceof ScaffoldError)) throw error;
    console.error(`new-platform: ${error.message}`);
    process.exit(1);
  }
}

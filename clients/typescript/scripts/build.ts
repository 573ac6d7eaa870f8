// Builds the package: JavaScript and declarations in dist/ (Node does not strip types under node_modules), with
// the generated schema.d.ts beside them, which tsc does not copy.
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const root = path.join(import.meta.dirname, '..');
await rm(path.join(root, 'dist'), { recursive: true, force: true });
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
await copyFile(path.join(root, 'src', 'schema.d.ts'), path.join(root, 'dist', 'schema.d.ts'));
console.log('built dist/');

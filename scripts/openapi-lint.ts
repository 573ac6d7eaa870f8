// Writes the OpenAPI description the server generates to a temporary file and lints it with Redocly
// (`npm run lint:openapi`). Builds the app without a database: the document depends only on the routes.
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { openApiDocument } from './openapi-document.ts';

const dir = await mkdtemp(path.join(tmpdir(), 'herald-openapi-'));
const file = path.join(dir, 'openapi.json');
await writeFile(file, JSON.stringify(await openApiDocument(), null, 2));
const result = spawnSync(
  process.execPath,
  [path.resolve('node_modules/@redocly/cli/bin/cli.js'), 'lint', '--config', path.resolve('redocly.yaml'), file],
  { stdio: 'inherit' },
);
await rm(dir, { recursive: true, force: true });
process.exit(result.status ?? 1);

// Writes the OpenAPI description the server generates to a temporary file and lints it with Redocly
// (`npm run lint:openapi`). Builds the app without a database: the document depends only on the routes.
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { openApiDocument } from './openapi-document.ts';
import { actionsDocument } from '../src/http/openapi.actions.ts';

const dir = await mkdtemp(path.join(tmpdir(), 'herald-openapi-'));
const file = path.join(dir, 'openapi.json');
const document = await openApiDocument();
await writeFile(file, JSON.stringify(document, null, 2));
// The action profile for custom GPT actions (src/http/openapi.actions.ts), cut from the same document.
const actions = path.join(dir, 'openapi-actions.json');
await writeFile(actions, JSON.stringify(actionsDocument(document, 'https://herald.your-company.test'), null, 2));
const result = spawnSync(
  process.execPath,
  [
    path.resolve('node_modules/@redocly/cli/bin/cli.js'),
    'lint',
    '--config',
    path.resolve('redocly.yaml'),
    file,
    actions,
  ],
  { stdio: 'inherit' },
);
await rm(dir, { recursive: true, force: true });
process.exit(result.status ?? 1);

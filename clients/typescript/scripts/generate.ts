// Regenerates clients/typescript/src/schema.d.ts, the client's types, from Herald's OpenAPI description with openapi-typescript.
//
//   npm run generate --prefix clients/typescript            the document the routes of this checkout describe,
//                                                           built in-process without a database or a server
//   npm run generate --prefix clients/typescript -- --check  fails (exit 1) when the committed file is not current
//   npm run generate --prefix clients/typescript -- --from http://127.0.0.1:8080/v1/openapi.json
//                                                           the description a running Herald serves
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

const here = import.meta.dirname;
const target = path.join(here, '..', 'src', 'schema.d.ts');
const args = process.argv.slice(2);
const from = args.includes('--from') ? args[args.indexOf('--from') + 1] : undefined;
const check = args.includes('--check');

async function description(): Promise<OpenAPI3> {
  if (from) {
    const res = await fetch(from, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`GET ${from} answered ${res.status}`);
    return (await res.json()) as OpenAPI3;
  }
  // The repository's own generator, the one `npm run lint:openapi` uses (it runs on the root's dependencies). A
  // computed specifier keeps the root's sources out of this package's type-check.
  const generator = pathToFileURL(path.join(here, '..', '..', '..', 'scripts', 'openapi-document.ts')).href;
  const { openApiDocument } = (await import(generator)) as { openApiDocument(): Promise<unknown> };
  return (await openApiDocument()) as OpenAPI3;
}

const document = await description();
const ast = await openapiTS(document, { alphabetize: false });
const header = `${COMMENT_HEADER.trimEnd()}\n// Regenerate with \`npm run generate --prefix clients/typescript\` (clients/typescript/scripts/generate.ts).\n\n`;
const text = header + astToString(ast);

if (check) {
  const committed = await readFile(target, 'utf8').catch(() => '');
  if (committed !== text) {
    console.error(
      'clients/typescript/src/schema.d.ts is not what the OpenAPI description generates: ' +
        'run `npm run generate --prefix clients/typescript` and commit the result.',
    );
    process.exit(1);
  }
  console.log('clients/typescript/src/schema.d.ts is current');
} else {
  await writeFile(target, text);
  console.log(`wrote ${path.relative(process.cwd(), target)} (${text.length} bytes)`);
}

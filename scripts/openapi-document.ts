// The OpenAPI document, generated from the routes without a database or a listening server.
import { loadConfig } from '../src/config.ts';
import { buildContainer } from '../src/container.ts';
import { buildServer } from '../src/http/server.ts';
import { createLogger } from '../src/lib/logger.ts';

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const secret = 'openapi-generation-only-0123456789abcdef';
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
    HERALD_SECRET_KEY: secret,
    HERALD_PUBLIC_URL: 'https://herald.your-company.test',
  });
  const container = buildContainer({
    config,
    logger: createLogger('silent'),
    connectionString: config.databaseUrl!,
    keyring: { current: secret, previous: [] },
  });
  const app = await buildServer(container);
  await app.ready();
  const document = app.swagger() as Record<string, unknown>;
  await app.close();
  await container.close();
  return document;
}

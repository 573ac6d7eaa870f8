// The API reference at /docs stays on the machine: loaded in Chromium, the page requests nothing from any host but
// Herald's own (no fonts from Scalar's servers, no CDN, no telemetry), shows no "Ask AI" or "Generate MCP" (which
// would send the description to Scalar), and carries Herald's title and favicon (src/http/reference.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/ports.ts';

let t: TestApp;
let browser: Browser;
let origin: string;

before(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await buildTestApp({ env: { HERALD_PUBLIC_URL: origin } });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});
after(async () => {
  await browser?.close();
  await t?.close();
});

test('/docs loads only from Herald, offers no third-party AI or MCP upload, and is titled Herald', async () => {
  const page = await browser.newPage();
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(`${origin}/docs`, { waitUntil: 'networkidle', timeout: 60_000 });
  // The reference has rendered: the Getting started page and an operation of the description.
  await page.getByText('Getting started').first().waitFor({ timeout: 60_000 });
  await page.getByText('Create a post').first().waitFor({ timeout: 60_000 });
  await page.waitForLoadState('networkidle');

  const foreign = requested.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url));
  assert.deepEqual(foreign, [], 'every request goes to Herald itself');
  assert.ok(
    requested.some((url) => url.endsWith('/docs/openapi.json')),
    'the description comes from Herald',
  );
  // Its samples carry an Idempotency-Key generated for this reader, never an empty or shared one.
  const keys = await Promise.all(
    [1, 2].map(async () => {
      const described = (await (await page.request.get(`${origin}/docs/openapi.json`)).json()) as {
        components: { parameters: { IdempotencyKey: { example: string } } };
      };
      return described.components.parameters.IdempotencyKey.example;
    }),
  );
  for (const key of keys) assert.match(key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(keys[0], keys[1]);

  assert.equal(await page.title(), 'Herald API reference');
  assert.equal(await page.locator('link[rel~="icon"]').first().getAttribute('href'), '/docs/favicon.svg');
  const favicon = await page.request.get(`${origin}/docs/favicon.svg`);
  assert.equal(favicon.status(), 200);
  assert.match(favicon.headers()['content-type'] ?? '', /image\/svg\+xml/);

  // The MCP hint names Herald's own endpoint (the configuration the page was rendered with).
  const html = await (await page.request.get(`${origin}/docs/`)).text();
  assert.ok(html.includes(`"url": "${origin}/mcp"`), 'mcp.url is Herald’s /mcp');
  for (const label of ['Ask AI', 'Generate MCP', 'Test Request', 'Deploy'])
    assert.equal(await page.getByText(label, { exact: false }).count(), 0, `no "${label}" control`);
  await page.close();
});

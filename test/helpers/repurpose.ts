// Shared by the repurpose tests: a fixture article served over local HTTP (with the pages the SSRF cases need),
// starting a job and waiting for it to end.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './app.ts';
import { pollFor } from './poll.ts';

const PARAGRAPHS = [
  'Herald now turns one long article into posts for every network, and it does so without any model at all.',
  'The extractive engine ranks every sentence of the article by the weight of the terms it carries.',
  'Teams that publish a weekly blog post spend hours rewriting it for each network by hand.',
  'A thread on X needs short parts, while a LinkedIn post can carry a full argument with a call to action.',
  'The engine keeps the title as the lead and picks the sentences that carry the most weight.',
  'Each output is split on sentence boundaries so that every part stays within the limit of its platform.',
  'Hashtags come from the keywords of the article and from the defaults of the brand.',
  'The link back to the article carries UTM parameters, so the traffic it brings can be measured.',
  'When a model is configured, it rewrites the article in the voice of the brand under a JSON schema.',
  'Whatever writes the text, the same validator checks it before a post is created.',
  'Nothing that breaks a platform rule ever becomes a post: it is split, trimmed, or reported as failed.',
  'Review teams can ask for every output to wait in the approval queue, one batch per job.',
];

export const ARTICLE_TITLE = 'One article, every network';

export const ARTICLE_HTML = `<!doctype html><html><head><title>${ARTICLE_TITLE}</title></head><body>
<nav><a href="/">Home</a> <a href="/blog">Blog</a> <a href="/about">About us</a></nav>
<main><article><h1>${ARTICLE_TITLE}</h1>
${PARAGRAPHS.map((p) => `<p>${p}</p>`).join('\n')}
</article></main>
<footer>Copyright Example Inc. All rights reserved. Subscribe to our newsletter.</footer></body></html>`;

export interface FixtureServer {
  origin(host?: string): string;
  /** Responses left open (the slow page): closed when the server stops. */
  close(): Promise<void>;
}

/** Serves the article and the hostile pages on 127.0.0.1; `host` names it as the test's fake DNS does. */
export async function startArticleServer(): Promise<FixtureServer> {
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    open.add(response);
    response.on('close', () => open.delete(response));
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    switch (path) {
      case '/blog/article':
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE_HTML);
        return;
      case '/hop':
        response.writeHead(302, { location: '/blog/article' }).end();
        return;
      case '/to-private':
        response.writeHead(302, { location: 'https://private.example/admin' }).end();
        return;
      case '/big': // no Content-Length: the cap holds while streaming
        response.writeHead(200, { 'content-type': 'text/html' });
        response.write('<html><body><p>');
        for (let i = 0; i < 300; i++) response.write('word '.repeat(2_000));
        response.end('</p></body></html>');
        return;
      case '/slow':
        response.writeHead(200, { 'content-type': 'text/html' });
        response.write('<html><body><p>Just the first words'); // and nothing more
        return;
      case '/data.json':
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"title":"not a page"}');
        return;
      default:
        response.writeHead(404).end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: (host = 'articles.test') => `http://${host}:${port}`,
    async close() {
      for (const response of open) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** POST /v1/repurpose; asserts the 202 and answers the queued job. */
export async function startJob(t: TestApp, key: string, body: Record<string, unknown>) {
  const res = await t.inject({ method: 'POST', url: '/v1/repurpose', key, payload: body });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().data as { id: string; status: string };
}

const ENDED = ['completed', 'partially_completed', 'failed', 'cancelled'];

/** Polls GET /v1/repurpose/{id} until the job has ended. */
export async function jobEnded(t: TestApp, key: string, id: string) {
  return pollFor(`repurpose job ${id} ended`, async () => {
    const res = await t.inject({ url: `/v1/repurpose/${id}`, key });
    assert.equal(res.statusCode, 200, res.body);
    const job = res.json().data;
    return ENDED.includes(job.status) ? job : undefined;
  });
}

// An in-process fake of an OpenAI-compatible endpoint (`POST /v1/chat/completions`), as the platform simulators
// are fakes of the platforms: it records every request it receives (headers, body, messages) and answers what
// the test switches it to — a JSON answer, raw text, bad JSON, a refusal, an HTTP error, a hang (timeout), or a
// gullible model that obeys instructions injected into its prompt.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedChat {
  headers: http.IncomingHttpHeaders;
  body: {
    model?: string;
    messages: { role: string; content: string }[];
    response_format?: { type: string; json_schema?: { name: string; schema: unknown } };
    max_tokens?: number;
  };
}

/**
 * What the fake answers:
 * - `{ json }`: the value as the message content; `{ text }`: raw content;
 * - `bad_json`: content that is not JSON; `refusal`: `content: null` and a `refusal`;
 * - `timeout`: never answers; `{ status, body? }`: an HTTP error;
 * - `obey_injection`: a gullible model. If any message says "ignore previous instructions and answer: X", it answers
 *   X verbatim (what a model that follows an injection does); otherwise it answers `fallback`.
 */
export type FakeAnswer =
  | { json: unknown; usage?: { prompt_tokens: number; completion_tokens: number } | null }
  | { text: string }
  | 'bad_json'
  | 'refusal'
  | 'timeout'
  | { status: number; body?: unknown }
  | { obey_injection: true; fallback: unknown };

export interface FakeLlm {
  /** The base URL to configure (`HERALD_AI_BASE_URL`), ending in `/v1`. */
  baseUrl: string;
  requests: RecordedChat[];
  /** How to answer each request from now on (default: `{ json: {} }`). */
  answer(fn: (request: RecordedChat, index: number) => FakeAnswer): void;
  close(): Promise<void>;
}

const INJECTION = /ignore (?:all )?previous instructions and answer:\s*(.+?)(?:\\n|\\"|"|\n|$)/i;

function completion(content: string | null, refusal: string | null, usage: unknown, model: string | undefined) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 0,
    model: model ?? 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal }, finish_reason: 'stop' }],
    ...(usage === null ? {} : { usage }),
  };
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const requests: RecordedChat[] = [];
  let respond: (request: RecordedChat, index: number) => FakeAnswer = () => ({ json: {} });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      let body: RecordedChat['body'];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedChat['body'];
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}');
        return;
      }
      const recorded = { headers: req.headers, body };
      requests.push(recorded);
      const answer = respond(recorded, requests.length - 1);
      if (answer === 'timeout') return;
      const promptChars = body.messages.reduce((n, m) => n + m.content.length, 0);
      const send = (content: string | null, refusal: string | null = null, usage?: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify(
            completion(
              content,
              refusal,
              usage === undefined
                ? {
                    prompt_tokens: Math.ceil(promptChars / 4),
                    completion_tokens: Math.ceil((content ?? '').length / 4),
                  }
                : usage,
              body.model,
            ),
          ),
        );
      if (answer === 'bad_json') return void send('{"summary": "cut off');
      if (answer === 'refusal') return void send(null, "I'm sorry, I can't help with that.");
      if ('status' in answer)
        return void res
          .writeHead(answer.status, { 'content-type': 'application/json' })
          .end(JSON.stringify(answer.body ?? { error: { message: 'fake error' } }));
      if ('text' in answer) return void send(answer.text);
      if ('obey_injection' in answer) {
        for (const m of body.messages) {
          const found = INJECTION.exec(m.content);
          if (found) return void send(found[1]!);
        }
        return void send(JSON.stringify(answer.fallback));
      }
      send(JSON.stringify(answer.json), null, answer.usage);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    answer(fn) {
      respond = fn;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

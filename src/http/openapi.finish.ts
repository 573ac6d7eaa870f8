// The last pass over the generated OpenAPI document (@fastify/swagger's `transformObject`), so that routes declare
// only what is theirs and the document still says everything the server does:
//  - every schema `named()` in a feature (a PascalCase `title`) becomes `#/components/schemas/<Name>`;
//  - the headers the access pipeline reads become shared parameters (`#/components/parameters/IdempotencyKey` …),
//    so a client-wide middleware can set them;
//  - the headers every answer carries (X-Request-Id, the rate-limit pair, Retry-After, Idempotent-Replayed) are
//    described on every response that sends them;
//  - every request body and response gets an example, composed from the examples of the named schemas;
//  - `x-herald-callbacks` on a route (the signed upload PUT) becomes the operation's `callbacks`.
// docs/conventions.md "Adding an endpoint" says how a route uses this; test/openapi.test.ts checks the result.
import { isDeepStrictEqual } from 'node:util';
import { ERROR_CATALOGUE, type ErrorCode } from '../app/errors.ts';
import { SCHEMA_NAME } from '../app/envelope.ts';

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  parameters?: Json[];
  requestBody?: { content?: Record<string, Json> };
  responses?: Record<string, Json>;
  'x-herald-callbacks'?: Json;
  callbacks?: Json;
  /** Set by openapi.ts on a deprecated route: which of the optional deprecation headers it sends. */
  'x-herald-deprecation'?: { sunset: boolean; link: boolean };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; parameters?: Json; headers?: Json };
  webhooks?: Json;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
/** Keys whose values are data, not schemas: never hoisted from. */
const DATA_KEYS = new Set(['example', 'examples', 'enum', 'const', 'default']);

/** An idempotency key as a client generates it: a random UUID. */
export const EXAMPLE_IDEMPOTENCY_KEY = '3f0c9a52-7d1e-4b8a-9c6f-2e5d8b1a7c40';
export const EXAMPLE_REQUEST_ID = 'req_3Jx9s0AqLZr6b2Vd';
export const EXAMPLE_WORKSPACE_ID = '0b6f2c1e-4d3a-4f8e-9a7b-5c2d1e0f9a83';

// The optional headers carry no example, so the reference's samples leave them out (a sample with a made-up
// workspace or brand would be refused).
const SHARED_PARAMETERS: Record<string, { header: string; component: Json }> = {
  'idempotency-key': {
    header: 'IdempotencyKey',
    component: {
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      description:
        'Required on every mutating call: a fresh random value (a UUID) per intended change. A retry with the same key replays the first answer (with `Idempotent-Replayed: true`) for 24 h; the same key with another body is a 422. The official client sets it for you.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
      example: EXAMPLE_IDEMPOTENCY_KEY,
    },
  },
  'x-herald-workspace-id': {
    header: 'WorkspaceId',
    component: {
      name: 'x-herald-workspace-id',
      in: 'header',
      required: false,
      description: 'The workspace to act in. Optional when the key reaches exactly one workspace.',
      schema: { type: 'string', format: 'uuid' },
    },
  },
  'x-herald-brand-id': {
    header: 'BrandId',
    component: {
      name: 'x-herald-brand-id',
      in: 'header',
      required: false,
      description: "The brand to act for; default: the workspace's default brand (lists: all brands).",
      schema: { type: 'string', maxLength: 100 },
    },
  },
};

const int = { type: 'integer' };
const RESPONSE_HEADERS: Record<string, Json> = {
  XRequestId: {
    description: "The request's id, also in the body's `request_id`: quote it when reporting a problem.",
    schema: { type: 'string', examples: [EXAMPLE_REQUEST_ID] },
  },
  XRateLimitLimit: { description: 'Requests per minute of the budget this request spent.', schema: int },
  XRateLimitRemaining: { description: 'Requests left in that budget now.', schema: int },
  XRateLimitReset: { description: 'Unix time (seconds) when the budget is full again.', schema: int },
  RateLimit: {
    description: 'The same, as the IETF RateLimit header: `"<budget>";r=<remaining>;t=<seconds to reset>`.',
    schema: { type: 'string', examples: ['"read";r=599;t=1'] },
  },
  RateLimitPolicy: {
    description: 'The budget as the IETF RateLimit-Policy header: `"<budget>";q=<limit>;w=60`.',
    schema: { type: 'string', examples: ['"read";q=600;w=60'] },
  },
  RetryAfter: {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 1 },
  },
  IdempotentReplayed: {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  // A deprecated route's (http/deprecation.ts, docs/versioning.md), on every answer it sends.
  Deprecation: {
    description: 'This operation is deprecated: since when, as `@` and Unix seconds (RFC 9745).',
    schema: { type: 'string', examples: ['@1782864000'] },
  },
  Sunset: {
    description: 'When this operation may be removed, as an HTTP date (RFC 8594).',
    schema: { type: 'string', examples: ['Fri, 01 Jan 2027 00:00:00 GMT'] },
  },
  Link: {
    description: 'Where the deprecation and its replacement are described (`rel="deprecation"`, `rel="sunset"`).',
    schema: { type: 'string' },
  },
};
const RATE_LIMIT_HEADERS: Record<string, string> = {
  'X-RateLimit-Limit': 'XRateLimitLimit',
  'X-RateLimit-Remaining': 'XRateLimitRemaining',
  'X-RateLimit-Reset': 'XRateLimitReset',
  RateLimit: 'RateLimit',
  'RateLimit-Policy': 'RateLimitPolicy',
};

/** Runs every step; returns the same document. */
export function finishDocument<T>(document: T, publicUrl: string): T {
  const doc = document as unknown as Document;
  doc.components.schemas ??= {};
  hoistNamedSchemas(doc);
  shareParameters(doc);
  describeResponseHeaders(doc);
  addExamples(doc, publicUrl);
  for (const op of operations(doc)) {
    const marked = op as unknown as Json;
    if (marked['x-herald-optional-body']) {
      delete marked['x-herald-optional-body'];
      if (op.requestBody) (op.requestBody as Json).required = false;
    }
    delete op['x-herald-deprecation'];
    if (op['x-herald-callbacks']) {
      op.callbacks = op['x-herald-callbacks'];
      delete op['x-herald-callbacks'];
    }
  }
  return document;
}

function* operations(doc: Document): Generator<Operation> {
  for (const item of Object.values(doc.paths))
    for (const [method, op] of Object.entries(item)) if (METHODS.has(method)) yield op;
}

function* operationsWithPaths(doc: Document): Generator<[string, Operation]> {
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) if (METHODS.has(method)) yield [path, op];
}

// ---- named schemas ------------------------------------------------------------------------------------------

function hoistNamedSchemas(doc: Document): void {
  const schemas = doc.components.schemas;
  const visit = (node: unknown, atRoot: string | undefined): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n, undefined));
    if (node === null || typeof node !== 'object') return node;
    const obj = node as Json;
    for (const [key, value] of Object.entries(obj)) if (!DATA_KEYS.has(key)) obj[key] = visit(value, undefined);
    const title = obj.title;
    if (typeof title !== 'string' || !SCHEMA_NAME.test(title) || atRoot === title || !looksLikeSchema(obj)) return obj;
    const existing = schemas[title];
    if (existing && existing !== obj) {
      // @fastify/swagger moves a body's or response's own example and description out of its schema, so two uses
      // of one named schema may differ in those only: keep the fuller copy.
      if (!isDeepStrictEqual(withoutNotes(existing), withoutNotes(obj)))
        throw new Error(`Two different schemas are named ${title}; give one another name`);
      schemas[title] = { ...obj, ...existing };
    } else schemas[title] = obj;
    return { $ref: `#/components/schemas/${title}` };
  };
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = visit(schema, name) as Json;
  for (const op of operations(doc)) {
    if (op.requestBody) op.requestBody = visit(op.requestBody, undefined) as Operation['requestBody'];
    if (op.responses) op.responses = visit(op.responses, undefined) as Operation['responses'];
    if (op.parameters) op.parameters = visit(op.parameters, undefined) as Json[];
  }
  if (doc.webhooks) doc.webhooks = visit(doc.webhooks, undefined) as Json;
}

function withoutNotes(schema: Json): Json {
  const { examples: _examples, example: _example, description: _description, ...rest } = schema;
  return rest;
}

function looksLikeSchema(obj: Json): boolean {
  return ['type', 'properties', 'anyOf', 'oneOf', 'allOf', 'items', '$ref', 'enum', 'const'].some((k) => k in obj);
}

// ---- shared header parameters and response headers -------------------------------------------------------------

function shareParameters(doc: Document): void {
  const parameters = (doc.components.parameters ??= {}) as Json;
  for (const op of operations(doc)) {
    if (!op.parameters) continue;
    op.parameters = op.parameters.map((p) => {
      const shared = p.in === 'header' ? SHARED_PARAMETERS[String(p.name).toLowerCase()] : undefined;
      if (!shared) return p;
      parameters[shared.header] = shared.component;
      return { $ref: `#/components/parameters/${shared.header}` };
    });
  }
}

function isMutating(op: Operation): boolean {
  return (op.parameters ?? []).some((p) => p.$ref === '#/components/parameters/IdempotencyKey');
}

function describeResponseHeaders(doc: Document): void {
  // Only the components some response refers to (no route is deprecated today: no unused Deprecation component).
  const used = new Set<string>();
  const headerRef = (name: string) => {
    used.add(name);
    return { $ref: `#/components/headers/${name}` };
  };
  for (const op of operations(doc)) {
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      if (typeof response.$ref === 'string') continue;
      const headers: Json = { 'X-Request-Id': headerRef('XRequestId') };
      for (const [name, ref] of Object.entries(RATE_LIMIT_HEADERS)) headers[name] = headerRef(ref);
      if (['409', '429', '503'].includes(status)) headers['Retry-After'] = headerRef('RetryAfter');
      // Only 2xx answers are stored under a key (app/idempotency.ts), so only they are replayed.
      if (isMutating(op) && status.startsWith('2')) headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
      const deprecation = op['x-herald-deprecation'];
      if (deprecation) {
        headers.Deprecation = headerRef('Deprecation');
        if (deprecation.sunset) headers.Sunset = headerRef('Sunset');
        if (deprecation.link) headers.Link = headerRef('Link');
      }
      response.headers = { ...headers, ...((response.headers as Json | undefined) ?? {}) };
    }
  }
  if (used.size > 0) {
    const components = Object.fromEntries(Object.entries(RESPONSE_HEADERS).filter(([name]) => used.has(name)));
    doc.components.headers = { ...components, ...(doc.components.headers ?? {}) };
  }
}

// ---- examples -------------------------------------------------------------------------------------------------

const MISSING = Symbol('no example');
type Example = unknown;

/** Example of a schema, composed from the examples of named schemas; MISSING where no value is realistic. */
export function exampleOf(schema: unknown, doc: { components: { schemas: Record<string, Json> } }, depth = 0): Example {
  if (depth > 12 || schema === null || typeof schema !== 'object') return MISSING;
  const s = schema as Json;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ('example' in s) return s.example;
  if ('const' in s) return s.const;
  if (typeof s.$ref === 'string') {
    const name = s.$ref.replace('#/components/schemas/', '');
    return exampleOf(doc.components.schemas[name], doc, depth + 1);
  }
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map((p) => exampleOf(p, doc, depth + 1));
    if (parts.some((p) => p === MISSING || typeof p !== 'object' || p === null)) return MISSING;
    return Object.assign({}, ...(parts as object[]));
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(s[key])) continue;
    const branches = s[key] as Json[];
    // Prefer a branch with a value over `null`.
    const ordered = [...branches.filter((b) => b.type !== 'null'), ...branches.filter((b) => b.type === 'null')];
    for (const branch of ordered) {
      const value = exampleOf(branch, doc, depth + 1);
      if (value !== MISSING) return value;
    }
    return MISSING;
  }
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ('default' in s) return s.default;
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : s.type;
  if (type === undefined && Array.isArray(s.type) && s.type.includes('null')) return null;
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return false;
    case 'string':
      if (s.format === 'date-time') return '2026-12-01T09:00:00Z';
      if (s.format === 'uuid') return EXAMPLE_WORKSPACE_ID;
      return MISSING;
    case 'array': {
      const item = exampleOf(s.items, doc, depth + 1);
      return item === MISSING ? MISSING : [item];
    }
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set((s.required as string[] | undefined) ?? []);
      if (Object.keys(properties).length === 0) return s.additionalProperties === false ? {} : MISSING;
      const out: Json = {};
      for (const [name, prop] of Object.entries(properties)) {
        const value = exampleOf(prop, doc, depth + 1);
        if (value === MISSING) {
          if (required.has(name)) return MISSING;
          continue;
        }
        out[name] = value;
      }
      return out;
    }
    default:
      return MISSING;
  }
}

/** Ids of each collection (the first segment of its path), for `{id}` and the like. */
const ID_EXAMPLES: Record<string, string> = {
  posts: 'post_01jdq4x1k9m2v7c3r5t8w0yz6b',
  media: 'med_01jdq4x1k9m2v7c3r5t8w0yz6b',
  webhooks: 'whe_01jdq4x1k9m2v7c3r5t8w0yz6b',
  delivery_id: 'dlv_01jdq4x1k9m2v7c3r5t8w0yz6b',
  connections: 'conn_01jdq4x1k9m2v7c3r5t8w0yz6b',
  events: 'evt_01jdq4x1k9m2v7c3r5t8w0yz6b',
  brands: 'brand_01jdq4x1k9m2v7c3r5t8w0yz6b',
  keys: 'key_01jdq4x1k9m2v7c3r5t8w0yz6b',
  members: 'user_01jdq4x1k9m2v7c3r5t8w0yz6b',
  invites: 'inv_01jdq4x1k9m2v7c3r5t8w0yz6b',
  queues: 'que_01jdq4x1k9m2v7c3r5t8w0yz6b',
};

const ERROR_EXAMPLE_CODES: Record<string, ErrorCode> = {
  400: 'PUBLIC_API_BODY_INVALID',
  401: 'PUBLIC_API_KEY_INVALID',
  403: 'PUBLIC_API_SCOPE_FORBIDDEN',
  404: 'PUBLIC_API_NOT_FOUND',
  409: 'PUBLIC_API_STATE_CONFLICT',
  413: 'PUBLIC_API_PAYLOAD_TOO_LARGE',
  415: 'PUBLIC_API_UNSUPPORTED_MEDIA_TYPE',
  422: 'PUBLIC_API_VALIDATION_FAILED',
  429: 'PUBLIC_API_RATE_LIMITED',
  503: 'PUBLIC_API_UNAVAILABLE',
};

const ERROR_EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  PUBLIC_API_BODY_INVALID: 'The body is not valid JSON: Unexpected end of JSON input',
  PUBLIC_API_KEY_INVALID: 'This API key is not valid (unknown, revoked or malformed).',
  PUBLIC_API_SCOPE_FORBIDDEN: 'This endpoint needs the `posts:write` scope, which this key lacks.',
  PUBLIC_API_NOT_FOUND: 'No post with that id in this workspace.',
  PUBLIC_API_STATE_CONFLICT: 'The post is published; only drafts and scheduled posts can change.',
  PUBLIC_API_RATE_LIMITED: 'Rate limit of 600 read requests per minute reached; retry in 2 s.',
};

function errorExample(status: string, publicUrl: string): Json | undefined {
  const code = ERROR_EXAMPLE_CODES[status];
  if (!code) return undefined;
  const error: Json = {
    code,
    message: ERROR_EXAMPLE_MESSAGES[code] ?? ERROR_CATALOGUE[code].when,
    retryable: ERROR_CATALOGUE[code].retryable,
    doc_url: `${publicUrl}/docs/errors#${code}`,
  };
  if (code === 'PUBLIC_API_VALIDATION_FAILED')
    error.details = [
      { path: '/content', message: 'Text is 312 characters; X allows 280.', platform: 'x', rule: 'max_length' },
    ];
  return { success: false, error, request_id: EXAMPLE_REQUEST_ID };
}

function addExamples(doc: Document, publicUrl: string): void {
  for (const [path, op] of operationsWithPaths(doc)) {
    for (const media of Object.values(op.requestBody?.content ?? {})) {
      if ('example' in media || 'examples' in media) continue;
      const value = exampleOf(media.schema, doc);
      if (value !== MISSING) media.example = value;
    }
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
        if ('example' in media || 'examples' in media) continue;
        if (!type.includes('json') && !type.includes('yaml')) continue;
        const schema = media.schema as Json | undefined;
        const value =
          schema?.$ref === '#/components/schemas/ErrorEnvelope'
            ? errorExample(status, publicUrl)
            : exampleOf(schema, doc);
        if (value !== MISSING && value !== undefined) media.example = value;
      }
    }
    for (const p of op.parameters ?? []) {
      if (p.in !== 'path' || 'example' in p) continue;
      const value = exampleOf(p.schema, doc);
      const id = ID_EXAMPLES[p.name === 'id' ? path.split('/')[1]! : String(p.name)];
      if (value !== MISSING) p.example = value;
      else if (id) p.example = id;
    }
  }
}

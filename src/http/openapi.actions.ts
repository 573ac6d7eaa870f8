// The action profile of the API (docs/gpt-actions.md): the OpenAPI 3.1 document a custom GPT's action editor
// imports, served at /v1/openapi/actions (YAML) and /v1/openapi/actions.json. It is cut from the full document
// (openapi.ts), so the two cannot drift: the operations an assistant needs, nothing that needs a header other than
// Authorization, texts within the action platform's limits, and publishing marked for the user to confirm.
import { openApiRouteSchema } from './openapi.ts';

type Json = Record<string, unknown>;

/** The action platform's published limits (docs/gpt-actions.md "How the limits are met"). */
export const ACTION_LIMITS = {
  /** Characters of an operation's summary, and of its description. */
  operationText: 300,
  /** Characters of a parameter's description. */
  parameterText: 700,
  /** Characters of a request or an answer. */
  payload: 100_000,
  /** Seconds the platform waits for an answer. */
  callSeconds: 45,
} as const;

/**
 * The operations of the profile, each with whether it changes what goes out (`x-openai-isConsequential`: the
 * user confirms it in the conversation). Every write is consequential; reads and the dry run are not.
 */
export const ACTION_OPERATIONS: Readonly<Record<string, boolean>> = {
  createPost: true,
  validatePost: false,
  listPosts: false,
  getPost: false,
  updatePost: true,
  cancelPost: true,
  publishPost: true,
  createMedia: true,
  getMedia: false,
  listConnections: false,
  listPlatforms: false,
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

/** `text` cut to at most `max` characters: at the last sentence that fits, else the last word, with an ellipsis. */
export function shorten(text: string, max: number): string {
  const plain = text.replace(/\s+/g, ' ').trim();
  if (plain.length <= max) return plain;
  const head = plain.slice(0, max - 1);
  const sentence = head.lastIndexOf('. ');
  if (sentence >= max / 3) return head.slice(0, sentence + 1);
  const word = head.lastIndexOf(' ');
  return `${head.slice(0, word > 0 ? word : head.length)}…`;
}

/** Every `$ref` under `node`, as component names. */
function refs(node: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const n of node) refs(n, into);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/'))
        into.add(value.slice('#/components/schemas/'.length));
      else refs(value, into);
    }
  }
  return into;
}

/** Parameter and schema-property descriptions within the parameter limit, everywhere under `node`. */
function limitDescriptions(node: unknown): void {
  if (Array.isArray(node)) for (const n of node) limitDescriptions(n);
  else if (node !== null && typeof node === 'object') {
    const obj = node as Json;
    for (const [key, value] of Object.entries(obj)) {
      if (key === 'description' && typeof value === 'string') obj[key] = shorten(value, ACTION_LIMITS.parameterText);
      else if (key !== 'examples' && key !== 'example') limitDescriptions(value);
    }
  }
}

/** The action profile of `full` (the document `app.swagger()` returns), as a new document. */
export function actionsDocument(full: Json, publicUrl: string): Json {
  const source = structuredClone(full) as {
    info: Json;
    paths: Record<string, Record<string, Json>>;
    components: { schemas?: Record<string, Json>; securitySchemes?: Record<string, Json> };
  };
  const paths: Record<string, Record<string, Json>> = {};
  for (const [path, item] of Object.entries(source.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const consequential = ACTION_OPERATIONS[String(op.operationId)];
      if (!METHODS.has(method) || consequential === undefined) continue;
      // Only Authorization reaches Herald from an action: the key's single workspace stands for the workspace
      // header, content deduplication (or `idempotency_key`) for the Idempotency-Key header.
      const parameters = ((op.parameters as Json[] | undefined) ?? []).filter(
        (p) => p.in !== 'header' && !('$ref' in p),
      );
      for (const p of parameters)
        if (typeof p.description === 'string') p.description = shorten(p.description, ACTION_LIMITS.parameterText);
      // The answers that succeed, then one per class of error: they all share the error envelope, whose code says
      // what went wrong (the assistant reads `error.message`); response headers reach no action.
      const responses: Record<string, Json> = {};
      for (const [code, r] of Object.entries((op.responses as Record<string, Json>) ?? {})) {
        if (!code.startsWith('2')) continue;
        const { headers: _headers, ...rest } = r;
        responses[code] = rest;
      }
      responses['4XX'] = ERROR_RESPONSE;
      responses['5XX'] = ERROR_RESPONSE;
      limitDescriptions(op.requestBody);
      limitDescriptions(responses);
      const { callbacks: _callbacks, parameters: _parameters, ...kept } = op;
      paths[path] ??= {};
      paths[path][method] = {
        ...kept,
        summary: shorten(String(op.summary ?? op.operationId), ACTION_LIMITS.operationText),
        description: shorten(String(op.description ?? op.summary ?? ''), ACTION_LIMITS.operationText),
        ...(parameters.length > 0 ? { parameters } : {}),
        responses,
        security: [{ apiKey: [] }],
        'x-openai-isConsequential': consequential,
      };
    }
  }
  // The named schemas the kept operations use, and the ones those use in turn.
  const all = source.components.schemas ?? {};
  const wanted = refs(paths, new Set());
  for (let grew = true; grew;) {
    grew = false;
    for (const name of [...wanted])
      for (const inner of refs(all[name], new Set()))
        if (!wanted.has(inner)) {
          wanted.add(inner);
          grew = true;
        }
  }
  const schemas = Object.fromEntries([...wanted].sort().map((name) => [name, all[name]]));
  limitDescriptions(schemas);
  const bearer = source.components.securitySchemes?.apiKey ?? { type: 'http', scheme: 'bearer' };
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Herald (GPT actions)',
      version: source.info.version,
      license: source.info.license,
      description: shorten(
        'Create, check, schedule and publish social posts through Herald. Authenticate with an API key created with the actions profile; it reaches one workspace. A write repeated within 10 minutes is answered with the first answer and `replayed: true`, and nothing is done twice.',
        ACTION_LIMITS.operationText,
      ),
    },
    servers: [{ url: `${publicUrl}/v1`, description: 'This Herald server' }],
    paths,
    components: { schemas, securitySchemes: { apiKey: { ...bearer, type: 'http', scheme: 'bearer' } } },
    security: [{ apiKey: [] }],
  };
  // Examples document the full description; here they would only spend the assistant's context.
  return withoutExamples(document) as Json;
}

const ERROR_RESPONSE: Json = {
  description: 'An error: `error.code` and `error.message` say what went wrong and what to change.',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
};

function withoutExamples(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutExamples);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node as Json)
      .filter(([key]) => key !== 'examples' && key !== 'example')
      .map(([key, value]) => [key, withoutExamples(value)]),
  );
}

/** The schema of `GET /v1/openapi/actions` (YAML) and `GET /v1/openapi/actions.json`: the full one's, renamed. */
export function actionsRouteSchema(format: 'yaml' | 'json') {
  return {
    ...openApiRouteSchema(format),
    operationId: format === 'yaml' ? 'getOpenApiActions' : 'getOpenApiActionsJson',
    summary: `The action profile of this API, in ${format === 'yaml' ? 'YAML' : 'JSON'}`,
    description:
      "The OpenAPI 3.1 document to import into a custom GPT's actions (docs/gpt-actions.md): the posts, media, connections and platforms operations an assistant needs, with no header but Authorization, within the action platform's limits. No key needed.",
  };
}

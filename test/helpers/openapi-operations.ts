// The operations of Herald's OpenAPI description, in the shape the fuzzers need: which are public, which take
// an Idempotency-Key, a body (and its schema) or a query string.

export interface SchemaNode {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  $ref?: string;
}

export interface Operation {
  method: string;
  /** The OpenAPI path, relative to /v1, with `{name}` placeholders. */
  path: string;
  public: boolean;
  mutates: boolean;
  hasBody: boolean;
  hasQuery: boolean;
  /** Action routes take no body or {} (or an optional one): the description declares none, or an optional one. */
  action: boolean;
  bodySchema: SchemaNode | undefined;
  queryNames: string[];
}

interface OpenApiDocument {
  components?: { schemas?: Record<string, SchemaNode> };
  paths: Record<
    string,
    Record<
      string,
      {
        'x-herald-scopes'?: string[];
        parameters?: Array<{ in?: string; name?: string; $ref?: string }>;
        requestBody?: { required?: boolean; content: Record<string, { schema: SchemaNode }> };
      }
    >
  >;
}

export function operationsOf(document: unknown): Operation[] {
  const doc = document as OpenApiDocument;
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const params = op.parameters ?? [];
      // Named schemas and the shared Idempotency-Key parameter are references into components.
      const raw = op.requestBody?.content['application/json']?.schema;
      const bodySchema = raw?.$ref ? doc.components?.schemas?.[raw.$ref.split('/').pop()!] : raw;
      return {
        method: method.toUpperCase(),
        path,
        public: !op['x-herald-scopes'],
        mutates: params.some(
          (p) =>
            p.$ref === '#/components/parameters/IdempotencyKey' ||
            (p.in === 'header' && p.name?.toLowerCase() === 'idempotency-key'),
        ),
        hasBody: Boolean(op.requestBody),
        hasQuery: params.some((p) => p.in === 'query'),
        // Actions declare no body, or an optional one (rotate-secret): the server reads any Content-Type as JSON.
        action:
          Boolean(op.requestBody) &&
          (op.requestBody?.required === false || Object.keys(bodySchema?.properties ?? {}).length === 0),
        bodySchema,
        queryNames: params.filter((p) => p.in === 'query').map((p) => p.name!),
      };
    }),
  );
}

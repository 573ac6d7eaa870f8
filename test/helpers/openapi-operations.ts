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
  /** Action routes take no body or {}: their body schema has no properties. */
  action: boolean;
  bodySchema: SchemaNode | undefined;
  queryNames: string[];
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        'x-herald-scopes'?: string[];
        parameters?: Array<{ in: string; name: string }>;
        requestBody?: { content: Record<string, { schema: SchemaNode }> };
      }
    >
  >;
}

export function operationsOf(document: unknown): Operation[] {
  const doc = document as OpenApiDocument;
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const params = op.parameters ?? [];
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      return {
        method: method.toUpperCase(),
        path,
        public: !op['x-herald-scopes'],
        mutates: params.some((p) => p.in === 'header' && p.name === 'idempotency-key'),
        hasBody: Boolean(op.requestBody),
        hasQuery: params.some((p) => p.in === 'query'),
        action: Boolean(op.requestBody) && Object.keys(bodySchema?.properties ?? {}).length === 0,
        bodySchema,
        queryNames: params.filter((p) => p.in === 'query').map((p) => p.name),
      };
    }),
  );
}

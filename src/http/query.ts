// Query-string shapes the parser leaves flat: `metadata[key]=value` (OpenAPI `style: deepObject`) and lists sent
// comma-separated or as repeated parameters. Each is a route's `preValidation` hook, which reshapes
// `request.query` before the route's schema checks it, so the schema (and the MCP tools that share it) sees an
// object or an array.
import type { FastifyRequest } from 'fastify';

type Query = Record<string, unknown>;

/** Folds `name[key]=value` parameters into `query[name] = { key: value }` (a repeated key stays an array: a 400). */
export function deepObjectQuery(name: string) {
  const prefix = `${name}[`;
  return async (request: FastifyRequest): Promise<void> => {
    const query = request.query as Query;
    let folded: Record<string, unknown> | undefined;
    for (const [param, value] of Object.entries(query)) {
      if (!param.startsWith(prefix) || !param.endsWith(']')) continue;
      folded ??= {};
      // Defined, not assigned: `metadata[__proto__]=x` is a key like any other (one no resource can hold), not a
      // prototype to set, so the filter matches nothing instead of vanishing.
      Object.defineProperty(folded, param.slice(prefix.length, -1), {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      delete query[param];
    }
    if (folded) query[name] = folded;
  };
}

/** Turns `name=a,b` and `name=a&name=b` (or both) into `query[name] = ['a', 'b']`. */
export function listQuery(name: string) {
  return async (request: FastifyRequest): Promise<void> => {
    const query = request.query as Query;
    const value = query[name];
    if (value === undefined) return;
    const values = (Array.isArray(value) ? value : [value]).flatMap((v) =>
      typeof v === 'string' ? v.split(',').map((s) => s.trim()) : [v],
    );
    query[name] = values;
  };
}

/** In the OpenAPI document: object-valued query parameters are sent the deepObject way (`metadata[key]=value`). */
export function deepObjectParameters<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      for (const p of (op as { parameters?: Array<Record<string, unknown>> }).parameters ?? []) {
        if (p.in === 'query' && (p.schema as { type?: unknown } | undefined)?.type === 'object') {
          p.style = 'deepObject';
          p.explode = true;
        }
      }
    }
  }
  return document;
}

// Request validation with Ajv. Bodies are validated strictly (no type coercion, unknown fields rejected, every
// error reported); query strings, path and header values arrive as text, so there numbers are coerced. The
// compiled validators are cached per schema so the MCP tools can reuse exactly what REST uses.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a default export.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    validateFormats: true,
  });
  (addFormats as unknown as (a: Ajv, o?: unknown) => void)(ajv, { mode: 'full' });
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);
const cache = new WeakMap<object, ValidateFunction>();

/**
 * A validator compiled on its first use. Compiling every route's and tool's schemas at start cost most of the
 * start-up's CPU and some 20 MiB of generated code kept for routes a deployment may never call; the schemas
 * themselves are checked by the tests that call every route (test/tenancy.test.ts and each area's API tests).
 */
function compiledOnUse(ajv: Ajv, schema: object): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validate = ((data: unknown) => (compiled ??= ajv.compile(schema))(data)) as ValidateFunction;
  // Fastify and the MCP dispatcher read `errors` off the function after a failed call.
  Object.defineProperty(validate, 'errors', { get: () => compiled?.errors ?? null, configurable: true });
  return validate;
}

/** The validator for a body schema (shared by REST routes and MCP tools). */
export function bodyValidator(schema: object): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = compiledOnUse(bodyAjv, schema);
    cache.set(schema, fn);
  }
  return fn;
}

export function addSharedSchema(schema: { $id?: string }): void {
  for (const ajv of [bodyAjv, textAjv]) if (schema.$id && !ajv.getSchema(schema.$id)) ajv.addSchema(schema);
}

/** The validator for a query string, path or header schema: values arrive as text, so numbers are coerced. */
export function textValidator(schema: object): ValidateFunction {
  return compiledOnUse(textAjv, schema);
}

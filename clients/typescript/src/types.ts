// Type plumbing over the generated `paths`: the Idempotency-Key header made optional (the client sets it), and the
// payload of an operation (the envelope's `data`) for the unwrapping methods and the list iterator.
import type { FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
export type Schemas = components['schemas'];

type IdempotencyHeader = 'idempotency-key' | 'Idempotency-Key';
type RelaxHeader<H> = [NonNullable<H>] extends [never]
  ? H
  : Omit<NonNullable<H>, IdempotencyHeader> & {
      [K in IdempotencyHeader & keyof NonNullable<H>]?: NonNullable<H>[K];
    };
type RelaxOperation<O> = O extends { parameters: infer Ps }
  ? Omit<O, 'parameters'> & {
      parameters: Omit<Ps, 'header'> & { header?: RelaxHeader<Ps extends { header?: infer H } ? H : never> };
    }
  : O;

/** Herald's paths as the client takes them: every operation as generated, its Idempotency-Key optional. */
export type HeraldPaths = {
  [P in keyof paths]: { [K in keyof paths[P]]: K extends HttpMethod ? RelaxOperation<paths[P][K]> : paths[P][K] };
};

/** The paths that have an operation for `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof HeraldPaths]: HeraldPaths[P] extends { [K in M]: unknown } ? P : never;
}[keyof HeraldPaths];

export type OperationOf<P extends keyof HeraldPaths, M extends HttpMethod> = HeraldPaths[P] extends {
  [K in M]: infer O;
}
  ? O extends Record<string | number, unknown>
    ? O
    : never
  : never;

export type InitOf<P extends keyof HeraldPaths, M extends HttpMethod> = MaybeOptionalInit<HeraldPaths[P], M>;

/** The init argument, optional when nothing in it is required (openapi-fetch's rule). */
export type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** The successful answer's body of an operation. */
export type Answer<O extends Record<string | number, unknown>, Init> = NonNullable<
  FetchResponse<O, Init, 'application/json'>['data']
>;

/** What the unwrapping methods return: the envelope's `data` (or the body itself if it has none). */
export type Payload<O extends Record<string | number, unknown>, Init> =
  Answer<O, Init> extends { data: infer D } ? D : Answer<O, Init>;

/** A call that returns the payload and throws HeraldError on anything but 2xx. */
export type UnwrappedMethod<M extends HttpMethod> = <P extends PathsWith<M>, Init extends InitOf<P, M>>(
  url: P,
  ...init: InitParam<Init>
) => Promise<Payload<OperationOf<P, M>, Init>>;

/** The element type of a list endpoint's `items`, or never when `P` is not a list. */
export type ListItem<P extends PathsWith<'get'>> =
  Payload<OperationOf<P, 'get'>, object> extends { items: Array<infer I>; next_cursor: string | null } ? I : never;

/** Every GET path that answers a page (`items`, `next_cursor`). */
export type ListPaths = {
  [P in PathsWith<'get'>]: [ListItem<P>] extends [never] ? never : P;
}[PathsWith<'get'>];

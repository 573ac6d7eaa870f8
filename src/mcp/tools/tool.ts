// What an MCP tool is in Herald: a thin wrapper over one feature-service call, declaring the scope of the REST
// endpoint it mirrors and the REST schema its arguments are validated by. The published input schema is that
// REST schema plus the few arguments MCP needs instead of HTTP headers and paths (post_id, media_id or
// connection_id for the resource acted on, workspace_id, idempotency_key).
import { Type, type Static, type TObject, type TSchema } from 'typebox';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../features/keys/authenticator.ts';
import type { Scope } from '../../features/keys/scopes.ts';
import type { ServiceContext } from '../../app/context.ts';

/**
 * How every tool names a resource it takes or returns: the kind's own name, never a bare `id`, so that the
 * `post_id` create_post returns is the argument get_post takes. (A resource's own representation keeps `id`, as in
 * REST.)
 */
export type ResourceArgument =
  | 'post_id'
  | 'media_id'
  | 'connection_id'
  | 'brand_id'
  | 'approval_id'
  | 'approval_batch_id'
  | 'insight_id'
  | 'repurpose_job_id'
  | 'calendar_event_id'
  | 'inbox_item_id'
  | 'automation_id'
  | 'queue_id';

export interface ToolInput<Body = Record<string, unknown>> {
  /** The resource argument's value (the REST path parameter), for tools that act on one resource. */
  id?: string;
  /** The arguments that make up the REST body or query, validated by the REST schema (so typed by it). */
  body: Body;
}

export interface ToolRunContext {
  principal: Principal;
  /** The workspace context, for tools with `workspace: true` (in the write's transaction for mutating tools). */
  service: ServiceContext | null;
}

export interface ToolDefinition<S extends TObject = TObject> {
  name: string;
  title: string;
  /** Written for a model: what it does, when to use it, what it returns. */
  description: string;
  /** The scope of the REST endpoint this tool mirrors; null: any valid key. */
  scope: Scope | null;
  workspace: boolean;
  /** Spends the write budget and is idempotent by default. */
  mutates: boolean;
  /** The REST schema of the arguments and where REST reads them from (errors use the same codes). */
  input?: { schema: S; part: 'body' | 'querystring' };
  /** The argument naming the resource acted on, for tools on one resource (the REST path's `{id}`). */
  id?: { argument: ResourceArgument; description: string };
  annotations: ToolAnnotations;
  /**
   * A mutating tool's slow part that only reads (rules and a model's answer), run before the write's transaction
   * opens, so no transaction waits on a model; what it returns is `run`'s `prepared`.
   */
  prepare?(ctx: ToolRunContext, input: ToolInput<Static<S>>): Promise<unknown>;
  run(ctx: ToolRunContext, input: ToolInput<Static<S>>, prepared?: unknown): Promise<Record<string, unknown>>;
  /** One or two sentences for the model about the result. */
  summarize(result: Record<string, unknown>, input: ToolInput<Static<S>>): string;
}

/**
 * Declares a tool whose `run` receives its arguments typed by its REST schema (the dispatcher validated them with
 * that schema before the call), then files it with the others.
 */
export function tool<S extends TObject>(definition: ToolDefinition<S>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

export const WORKSPACE_ARG = Type.String({
  format: 'uuid',
  description:
    'The workspace to act in. Only needed when the key reaches several workspaces and no x-herald-workspace-id header is set; list_workspaces lists them.',
});
export const IDEMPOTENCY_ARG = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    'Optional. Repeating a call with the same arguments within 10 minutes returns the first result instead of acting twice; pass your own key to make a retry idempotent for 24 hours, or a new key to really do it again.',
});
const ID_MAX = 200;

/** The arguments that are not part of the REST body, validated on their own. */
export function controlSchema(tool: ToolDefinition): TObject {
  const props: Record<string, TSchema> = {};
  if (tool.id)
    props[tool.id.argument] = Type.String({ minLength: 1, maxLength: ID_MAX, description: tool.id.description });
  if (tool.workspace) props.workspace_id = Type.Optional(WORKSPACE_ARG);
  if (tool.mutates) props.idempotency_key = Type.Optional(IDEMPOTENCY_ARG);
  return Type.Object(props, { additionalProperties: true });
}

/** The tool as `tools/list` shows it. */
export function describeTool(tool: ToolDefinition): Tool {
  const control = controlSchema(tool);
  const schema = Type.Object(
    { ...control.properties, ...(tool.input?.schema.properties ?? {}) },
    { additionalProperties: false },
  );
  const needs = tool.scope ? `Requires the \`${tool.scope}\` scope.` : 'Any valid key may call it.';
  return {
    name: tool.name,
    title: tool.title,
    description: `${tool.description}\n\n${needs}`,
    inputSchema: JSON.parse(JSON.stringify(schema)) as Tool['inputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  };
}

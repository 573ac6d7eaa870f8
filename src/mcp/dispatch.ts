// Calling a tool: arguments checked by the REST schema's compiled validator, the workspace resolved (the key's
// only workspace, else the x-herald-workspace-id header, else the workspace_id argument), writes run through the
// same idempotency records as REST, and the answer is concise text plus the structured data — or, on failure,
// the REST envelope's error object with the same code.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ValidateFunction } from 'ajv';
import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from '../db/pool.ts';
import type { Principal } from '../features/keys/authenticator.ts';
import { findBrand } from '../features/workspaces/workspaces.repo.ts';
import { assertRoleAllows } from '../features/workspaces/roles.ts';
import type { ServiceContext } from '../app/context.ts';
import { errorBody } from '../app/envelope.ts';
import { toAppError } from '../app/errors.ts';
import {
  CONTENT_DEDUP_TTL_SECONDS,
  contentClaimKey,
  contentClaimPrefix,
  IDEMPOTENCY_TTL_SECONDS,
  runIdempotent,
} from '../app/idempotency.ts';
import { bodyValidator } from '../app/validation.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import { sha256, type SecretKeyring } from '../lib/crypto.ts';
import { AppError } from '../app/errors.ts';
import { controlSchema, type ToolDefinition, type ToolInput } from './tools/tool.ts';

export interface CallContext {
  principal: Principal;
  /** The x-herald-workspace-id and x-herald-brand-id headers of the MCP request, if sent. */
  workspaceHeader: string | undefined;
  brandHeader: string | undefined;
  requestId: string;
  log: Pick<FastifyBaseLogger, 'error'>;
}

export interface DispatchDeps {
  pool: Pool;
  keyring: SecretKeyring;
  publicUrl: string;
  tools: readonly ToolDefinition[];
}

type Reachable = Principal['reachable'][number];

function resolveWorkspace(principal: Principal, header: string | undefined, argument: string | undefined): Reachable {
  const norm = (v: string | undefined) => v?.trim().toLowerCase();
  const find = (id: string | undefined) => principal.reachable.find((w) => w.id === id);
  const forbidden = () => new AppError('PUBLIC_API_WORKSPACE_FORBIDDEN', 'This key cannot reach that workspace.');
  const [only] = principal.reachable;
  if (principal.reachable.length === 1 && only) {
    if ((header !== undefined && norm(header) !== only.id) || (argument !== undefined && norm(argument) !== only.id))
      throw forbidden();
    return only;
  }
  if (header !== undefined) {
    if (argument !== undefined && norm(argument) !== norm(header)) {
      throw new AppError('PUBLIC_API_BODY_INVALID', 'workspace_id differs from the x-herald-workspace-id header.', {
        details: [{ path: '/workspace_id', message: 'differs from the x-herald-workspace-id header' }],
      });
    }
    return (
      find(norm(header)) ??
      (() => {
        throw forbidden();
      })()
    );
  }
  if (argument !== undefined)
    return (
      find(norm(argument)) ??
      (() => {
        throw forbidden();
      })()
    );
  if (principal.reachable.length === 0)
    throw new AppError('PUBLIC_API_WORKSPACE_FORBIDDEN', 'This key reaches no workspace.');
  throw new AppError(
    'PUBLIC_API_WORKSPACE_REQUIRED',
    'This key reaches several workspaces: pass workspace_id (list_workspaces lists them).',
  );
}

/**
 * The brand a call applies to: the header's, else the workspace's default, else the key's only brand there (an
 * OAuth grant limited to one brand), else none — lists then cover the key's brands, and creating needs brand_id.
 */
async function resolveBrand(
  pool: Pool,
  principal: Principal,
  workspace: Reachable,
  header: string | undefined,
): Promise<{ brandId: string | null; fromHeader: boolean }> {
  const allowed = principal.brandIds;
  const forbidden = new AppError(
    'PUBLIC_API_BRAND_FORBIDDEN',
    'That brand is not in this workspace or not reachable by this key.',
  );
  if (header !== undefined) {
    const id = header.trim();
    if (
      id === '' ||
      id.length > 100 ||
      (allowed && !allowed.includes(id)) ||
      !(await findBrand(pool, workspace.id, id))
    )
      throw forbidden;
    return { brandId: id, fromHeader: true };
  }
  if (workspace.default_brand_id && (!allowed || allowed.includes(workspace.default_brand_id)))
    return { brandId: workspace.default_brand_id, fromHeader: false };
  const inWorkspace = [];
  for (const id of allowed ?? []) if (await findBrand(pool, workspace.id, id)) inWorkspace.push(id);
  return { brandId: inWorkspace.length === 1 ? inWorkspace[0]! : null, fromHeader: false };
}

/** A schema failure in the REST codes, worded for tool arguments rather than HTTP parts. */
function invalidArguments(errors: ValidateFunction['errors'], part: 'body' | 'querystring'): AppError {
  const error = toAppError({ validation: errors, validationContext: part })!;
  return new AppError(
    error.code,
    error.message.replace(/^The (body|query string) is invalid/, 'The arguments are invalid'),
    { details: error.details },
  );
}

/**
 * Tools used to take a bare `id`; a caller still sending it learns the new name instead of reading "missing
 * post_id" and guessing (see docs/decisions.md, "MCP tools name a resource by its kind").
 */
function renamedId(argument: string): AppError {
  return new AppError('PUBLIC_API_BODY_INVALID', `The arguments are invalid: \`id\` is now called \`${argument}\`.`, {
    details: [{ path: '/id', message: `renamed ${argument}: pass the same value as ${argument}` }],
  });
}

function failure(error: AppError, requestId: string, publicUrl: string): CallToolResult {
  const { error: body } = errorBody(requestId, error.code, error.message, publicUrl, error.details) as {
    error: Record<string, unknown>;
  };
  const details = (error.details ?? [])
    .slice(0, 10)
    .map((d) =>
      `\n- ${d.platform ? `${d.platform} · ` : ''}${d.rule ? `${d.rule} · ` : ''}${d.path ?? ''} ${d.message}`.trimEnd(),
    );
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message}${details.join('')}` }],
    structuredContent: { error: body },
  };
}

export function createDispatcher(deps: DispatchDeps) {
  const byName = new Map(deps.tools.map((t) => [t.name, t]));
  const controls = new Map(
    deps.tools.map((t) => {
      const schema = controlSchema(t);
      return [t.name, { validate: bodyValidator(schema), names: new Set(Object.keys(schema.properties)) }];
    }),
  );

  function checkArguments(
    tool: ToolDefinition,
    raw: Record<string, unknown>,
  ): { input: ToolInput; workspaceArg?: string; idempotencyKey?: string } {
    const args = structuredClone(raw);
    const control = controls.get(tool.name)!;
    if (tool.id && 'id' in args && !(tool.id.argument in args)) throw renamedId(tool.id.argument);
    if (!control.validate(args)) throw invalidArguments(control.validate.errors, 'body');
    const body: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(args)) if (!control.names.has(key)) body[key] = value;
    if (tool.input) {
      const validate = bodyValidator(tool.input.schema);
      if (!validate(body)) throw invalidArguments(validate.errors, tool.input.part);
    } else if (Object.keys(body).length > 0) {
      const [extra] = Object.keys(body);
      throw new AppError('PUBLIC_API_BODY_INVALID', `The arguments are invalid: /${extra} is not a known field.`, {
        details: [{ path: `/${extra}`, message: 'is not a known field' }],
      });
    }
    return {
      input: { id: tool.id ? (args[tool.id.argument] as string) : undefined, body },
      workspaceArg: args.workspace_id as string | undefined,
      idempotencyKey: args.idempotency_key as string | undefined,
    };
  }

  async function serviceContext(call: CallContext, workspaceArg: string | undefined): Promise<ServiceContext> {
    const workspace = resolveWorkspace(call.principal, call.workspaceHeader, workspaceArg);
    const brand = await resolveBrand(deps.pool, call.principal, workspace, call.brandHeader);
    return {
      db: deps.pool,
      workspaceId: workspace.id,
      workspaceMode: workspace.mode,
      brandId: brand.brandId,
      brandFromHeader: brand.fromHeader,
      allowedBrandIds: call.principal.brandIds,
      userId: call.principal.userId,
      via: 'mcp',
    };
  }

  async function execute(
    tool: ToolDefinition,
    call: CallContext,
    raw: Record<string, unknown>,
  ): Promise<CallToolResult> {
    if (tool.scope && !call.principal.scopes.has(tool.scope)) {
      throw new AppError(
        'PUBLIC_API_SCOPE_FORBIDDEN',
        `${tool.name} needs the \`${tool.scope}\` scope, which this key lacks.`,
      );
    }
    const { input, workspaceArg, idempotencyKey } = checkArguments(tool, raw);
    const service = tool.workspace ? await serviceContext(call, workspaceArg) : null;
    if (service && tool.scope) {
      // As REST: the key's scope counts only as far as its owner's current role in this workspace allows.
      const role = call.principal.reachable.find((w) => w.id === service.workspaceId)!.role;
      assertRoleAllows(role, [tool.scope], call.principal.scopes, tool.name);
    }
    if (!tool.mutates || !service) {
      const data = await tool.run({ principal: call.principal, service }, input);
      return { content: [{ type: 'text', text: tool.summarize(data, input) }], structuredContent: data };
    }
    // Writes: the idempotency key is the API key, the tool and its canonical arguments, unless the caller gave one.
    const canonical = canonicalJson({ id: input.id, ...input.body });
    const claim =
      idempotencyKey !== undefined
        ? { key: `mcp:${idempotencyKey}`, ttlSeconds: IDEMPOTENCY_TTL_SECONDS }
        : {
            key: contentClaimKey(contentClaimPrefix('mcp', call.principal.keyId), tool.name, canonical),
            ttlSeconds: CONTENT_DEDUP_TTL_SECONDS,
          };
    const prepared = tool.prepare ? await tool.prepare({ principal: call.principal, service }, input) : undefined;
    const answer = await runIdempotent(
      deps,
      {
        workspaceId: service.workspaceId,
        userId: call.principal.userId,
        brandIds: call.principal.brandIds,
        fingerprint: sha256(`mcp\n${tool.name}\n${canonical}`),
        ...claim,
      },
      call.requestId,
      async (tx) => ({
        status: 200,
        data: await tool.run({ principal: call.principal, service: { ...service, db: tx } }, input, prepared),
      }),
    );
    const data = (JSON.parse(answer.text) as { data: Record<string, unknown> }).data;
    const summary = tool.summarize(data, input);
    if (!answer.replayed) return { content: [{ type: 'text', text: summary }], structuredContent: data };
    return {
      content: [
        {
          type: 'text',
          text: `Repeat of an identical earlier call: nothing was done again; this is the first call's result (pass a new idempotency_key to really do it again).\n${summary}`,
        },
      ],
      structuredContent: data,
      _meta: { 'herald/idempotent_replayed': true },
    };
  }

  return {
    byName,
    async call(call: CallContext, name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
      const tool = byName.get(name);
      if (!tool) {
        const { McpError, ErrorCode } = await import('@modelcontextprotocol/sdk/types.js'); // loaded by the endpoint already
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. tools/list lists the tools.`);
      }
      try {
        return await execute(tool, call, args ?? {});
      } catch (error) {
        const known = toAppError(error);
        if (known) return failure(known, call.requestId, deps.publicUrl);
        call.log.error({ err: error, tool: name }, 'mcp tool failed');
        return failure(
          new AppError(
            'PUBLIC_API_INTERNAL_ERROR',
            `Something went wrong on our side. Quote request id ${call.requestId} if you report it.`,
          ),
          call.requestId,
          deps.publicUrl,
        );
      }
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;

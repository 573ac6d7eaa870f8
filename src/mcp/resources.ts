// MCP resources: a brand's compiled context as `herald://brands/{brand_id}/context` (docs/api.md "MCP tools"). A
// resource read is the get_brand_context tool under another name — the same scope (brand:read), role check,
// workspace and brand resolution, and errors — so resources add no access path of their own; resources/list lists
// the brands list_brands would.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallContext, Dispatcher } from './dispatch.ts';

const TEMPLATE = 'herald://brands/{brand_id}/context';
/** `herald://brands/<id>/context`, optionally `?workspace_id=<uuid>` for a key that reaches several workspaces. */
const URI = /^herald:\/\/brands\/([A-Za-z0-9_-]{1,200})\/context(?:\?workspace_id=([0-9a-fA-F-]{36}))?$/;
/** JSON-RPC error codes: the MCP specification's "resource not found", and invalid params. */
const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

export function brandContextUri(brandId: string, workspaceId?: string): string {
  return `herald://brands/${brandId}/context${workspaceId ? `?workspace_id=${workspaceId}` : ''}`;
}

/** The tool's failure as a JSON-RPC error carrying the same Herald error code. */
function failed(result: CallToolResult): McpError {
  const error = (result.structuredContent as { error?: { code?: string; message?: string } } | undefined)?.error;
  const text = (result.content[0] as { text?: string } | undefined)?.text ?? 'The resource could not be read.';
  const code = error?.code === 'PUBLIC_API_NOT_FOUND' ? RESOURCE_NOT_FOUND : INVALID_PARAMS;
  return new McpError(code, text, { code: error?.code });
}

/** Registers the handlers on one request's server; `spend` takes the read budget per message. */
export function registerBrandResources(
  server: Server,
  call: CallContext,
  dispatcher: Dispatcher,
  spend: () => Promise<void>,
): void {
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    await spend();
    return {
      resourceTemplates: [
        {
          uriTemplate: TEMPLATE,
          name: 'brand_context',
          title: 'Brand context',
          description:
            "A brand's compiled context (voice, audience, rules, guidelines, memory), bounded in size: what get_brand_context returns as `text`. Add `?workspace_id=<uuid>` when the key reaches several workspaces. Needs brand:read.",
          mimeType: 'text/plain',
        },
      ],
    };
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    await spend();
    const cursor = request.params?.cursor;
    const result = await dispatcher.call(call, 'list_brands', cursor ? { cursor } : {});
    if (result.isError) throw failed(result);
    const page = result.structuredContent as {
      items: Array<{ id: string; name: string; workspace_id: string }>;
      next_cursor: string | null;
    };
    return {
      resources: page.items.map((b) => ({
        uri: brandContextUri(b.id),
        name: `brand_context_${b.id}`,
        title: `${b.name}: brand context`,
        mimeType: 'text/plain',
      })),
      ...(page.next_cursor ? { nextCursor: page.next_cursor } : {}),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    await spend();
    const { uri } = request.params;
    const match = URI.exec(uri);
    if (!match) throw new McpError(RESOURCE_NOT_FOUND, `Unknown resource ${uri}; resources/templates/list lists them.`);
    const result = await dispatcher.call(call, 'get_brand_context', {
      brand_id: match[1]!,
      ...(match[2] ? { workspace_id: match[2] } : {}),
    });
    if (result.isError) throw failed(result);
    const context = result.structuredContent as { text: string; version: number; truncated: string[] };
    return {
      contents: [
        {
          uri,
          mimeType: 'text/plain',
          text: context.text,
          _meta: { 'herald/version': context.version, 'herald/truncated': context.truncated },
        },
      ],
    };
  });
}

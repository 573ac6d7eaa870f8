// GET /oauth/authorize shows the consent screen (after sign-in); POST /oauth/authorize is its form: it checks
// the CSRF token and the sealed request, then sends the person back to the client with a code or an error.
// GET is reached before anyone signs in and may fetch a client's metadata document: it spends the anonymous
// budget of the client's address, like every anonymous route.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Pool } from '../../db/pool.ts';
import type { Scope } from '../../features/keys/scopes.ts';
import { listMembershipsWithBrands } from '../../features/users/users.service.ts';
import { messagePage } from '../../features/users/users.pages.ts';
import {
  checkSessionCsrf,
  currentUser,
  fromOwnOrigin,
  sessionCsrfToken,
  type SignedInUser,
  type WebSessionDeps,
} from '../../features/users/web-session.ts';
import { formField, formFields } from '../../http/forms.ts';
import { sendPage } from '../../http/html.ts';
import type { RawQuerystring } from '../../http/type-provider.ts';
import type { Clock } from '../../lib/clock.ts';
import { rateLimitHeaders, type Budget, type RateLimiter } from '../../app/rate-limit.ts';
import {
  clientRedirect,
  openRequest,
  parseAuthorizationRequest,
  sealRequest,
  type AuthorizationRequest,
} from './authorization-request.ts';
import type { ClientRow } from '../../features/oauth/clients.service.ts';
import { consentPage, targetValue } from './consent.page.ts';
import { scopesBeyondRole } from '../../features/workspaces/roles.ts';
import type { GrantsService } from '../../features/oauth/grants.service.ts';
import type { AuthServerUrls } from './metadata.ts';

export interface AuthorizeDeps {
  pool: Pool;
  web: WebSessionDeps;
  clock: Clock;
  urls: AuthServerUrls;
  grants: GrantsService;
  grantTtlDays: number;
  findClient(id: string): Promise<ClientRow | undefined>;
  /** Like findClient, but fetches the metadata document of a URL client_id (the consent screen needs it fresh). */
  resolveClient(id: string): Promise<ClientRow | undefined>;
  /** What a client that names no scope asks for: what the MCP tools use. */
  defaultScopes: readonly Scope[];
  rateLimiter: RateLimiter;
  /** GET /oauth/authorize per client IP (the anonymous budget). */
  anonymousBudget: Budget;
}

export function registerAuthorizeRoutes(app: FastifyInstance, deps: AuthorizeDeps): void {
  const hide = { schema: { hide: true } };
  const problem = (reply: FastifyReply, status: number, message: string) =>
    sendPage(
      reply,
      status,
      'Cannot connect',
      messagePage('This application cannot connect', message, 'Go back to the application and start again.'),
    );

  async function showConsent(
    reply: FastifyReply,
    user: SignedInUser,
    client: ClientRow,
    request: AuthorizationRequest,
    extra: { status?: number; error?: string; checked?: readonly string[]; target?: string } = {},
  ) {
    const memberships = await listMembershipsWithBrands(deps.pool, user.userId);
    if (memberships.length === 0)
      return problem(
        reply,
        403,
        `${user.email} is not a member of any workspace, so there is nothing to grant access to.`,
      );
    const body = consentPage({
      client,
      redirectUri: request.redirectUri,
      email: user.email,
      memberships,
      scopes: request.scopes,
      checked: extra.checked ?? request.scopes,
      target: extra.target,
      csrf: sessionCsrfToken(deps.web, user),
      sealed: sealRequest(deps.web.keyring, request, user.userId, deps.clock.now()),
      grantTtlDays: deps.grantTtlDays,
      error: extra.error,
    });
    // The form's answer redirects to the client: allow that origin in form-action.
    return sendPage(reply, extra.status ?? 200, `Connect ${client.name}`, body, [new URL(request.redirectUri).origin]);
  }

  app.get<{ Querystring: RawQuerystring }>('/oauth/authorize', hide, async (request, reply) => {
    const decision = await deps.rateLimiter.take(request.ip, deps.anonymousBudget);
    if (!decision.allowed) {
      reply.headers(rateLimitHeaders(decision, deps.anonymousBudget.name));
      return problem(reply, 429, 'Too many requests from your network. Wait a minute and try again.');
    }
    const parsed = await parseAuthorizationRequest(request.query, {
      ...deps,
      findClient: deps.resolveClient,
    });
    if (parsed.kind === 'fatal') return problem(reply, 400, parsed.message);
    if (parsed.kind === 'redirect_error') {
      return reply.redirect(
        clientRedirect(parsed.redirectUri, {
          error: parsed.error,
          error_description: parsed.description,
          state: parsed.state,
          iss: deps.urls.issuer,
        }),
        302,
      );
    }
    const user = await currentUser(deps.web, request);
    if (!user) return reply.redirect(`/login?return_to=${encodeURIComponent(request.url)}`, 302);
    return showConsent(reply, user, parsed.client, parsed.request);
  });

  app.post('/oauth/authorize', hide, async (request, reply) => {
    const body = request.body;
    const user = await currentUser(deps.web, request);
    if (!user) return problem(reply, 401, 'Your sign-in has ended.');
    if (!fromOwnOrigin(deps.web, request) || !checkSessionCsrf(deps.web, user, formField(body, 'csrf'))) {
      return problem(reply, 403, 'This form expired or did not come from Herald; nothing was granted.');
    }
    const pending = openRequest(deps.web.keyring, formField(body, 'request'), user.userId, deps.clock.now());
    if (!pending) return problem(reply, 400, 'This consent page is too old or was altered; nothing was granted.');
    const client = await deps.findClient(pending.clientId);
    if (!client || !client.redirect_uris.includes(pending.redirectUri))
      return problem(reply, 400, 'The application is no longer registered.');
    const back = (params: Record<string, string | undefined>) =>
      reply.redirect(
        clientRedirect(pending.redirectUri, { ...params, state: pending.state, iss: deps.urls.issuer }),
        303,
      );

    const decision = formField(body, 'decision');
    if (decision === 'deny') return back({ error: 'access_denied', error_description: 'The person declined.' });
    if (decision !== 'allow') return problem(reply, 400, 'Choose Allow or Deny.');

    const chosen = formFields(body, 'scope').filter((s): s is Scope => (pending.scopes as string[]).includes(s));
    const target = formField(body, 'target') ?? '';
    const [workspaceId, brandId] = target.split('/') as [string, string | undefined];
    const membership = (await listMembershipsWithBrands(deps.pool, user.userId)).find(
      (m) => m.workspace_id === workspaceId,
    );
    const validTarget = membership && (brandId === undefined || membership.brands.some((b) => b.id === brandId));
    // Checked server-side: a posted scope beyond the person's role in the chosen workspace is refused, not dropped.
    const beyond = membership ? scopesBeyondRole(membership.role, chosen) : [];
    if (!validTarget || chosen.length === 0 || beyond.length > 0) {
      return showConsent(reply, user, client, pending, {
        status: beyond.length > 0 && validTarget ? 403 : 400,
        checked: chosen.filter((s) => !beyond.includes(s)),
        target: validTarget ? targetValue(workspaceId, brandId) : undefined,
        error: !validTarget
          ? 'Choose a workspace you are a member of.'
          : beyond.length > 0
            ? `As a ${membership.role} of ${membership.workspace_name} you may not grant ${beyond.join(', ')}; nothing was granted.`
            : 'Choose at least one permission, or deny.',
      });
    }
    const code = await deps.grants.issueCode({
      client,
      userId: user.userId,
      workspaceId: membership.workspace_id,
      brandIds: brandId ? [brandId] : null,
      scopes: chosen,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
      resource: pending.resource,
    });
    return back({ code });
  });
}

// The hosted connect pages, outside /v1 (HTML, no API key: the link's token is the capability):
//   GET  /connect/{token}   the link: on to the platform's consent, or a form (instance, app password)
//   POST /connect/{token}   that form
//   GET  /connect/callback  where the platform sends the browser back (code or error, and the state)
//   POST /connect/choose    the account picked when the consent covers several (Pages, business accounts)
// Every ending goes back to the client's redirect_url (`connection_id` or `error`), else to a Herald page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptCookies, acceptForms, cookieName, formField, readCookie, setCookie } from '../../http/forms.ts';
import { sendPage } from '../../http/html.ts';
import type { RawQuerystring } from '../../http/type-provider.ts';
import { renderPageError } from '../users/login.routes.ts';
import { choicePage, donePage, failedPage, passwordForm, serverForm } from './connect.pages.ts';
import { ConnectFlowError } from './connect.platform.ts';
import { chooseAccount, handleCallback, returnUrl } from './connect.complete.ts';
import type { ConnectDeps, LandingStep } from './connect.flow.ts';
import { openLink, submitLinkForm } from './connect.service.ts';
import type { ConnectionRow } from './connections.repo.ts';
import type { ConnectLinkRow } from './connect.repo.ts';

/**
 * Where a page's form may lead (CSP `form-action` covers the redirects after a submit): the client's
 * redirect_url, and for the instance form any http(s) server, since the instance is whatever the user types.
 */
function formTargets(link: ConnectLinkRow, anyServer: boolean): string[] {
  const targets = anyServer ? ['https:', 'http:'] : [];
  if (link.redirect_url) targets.push(new URL(link.redirect_url).origin);
  return targets;
}

/** The hidden pages have no schemas: the router hands over the path's token as it is. */
interface TokenRoute {
  Params: { token: string };
}

/** Errors a user can fix on the same form (the link stays usable). */
const FORM_ERRORS = new Set(['server_required', 'server_blocked', 'credentials_required', 'login_failed']);

export async function registerConnectRoutes(app: FastifyInstance, deps: ConnectDeps): Promise<void> {
  const secure = (deps.access.publicUrl ?? '').startsWith('https:');
  const bindingCookie = cookieName('herald_connect', secure);
  const hide = { schema: { hide: true } };

  const finish = (reply: FastifyReply, result: { link: ConnectLinkRow; connection: ConnectionRow }) => {
    const back = returnUrl(result.link, { connectionId: result.connection.id });
    return back
      ? reply.code(302).header('location', back).header('cache-control', 'no-store').send()
      : sendPage(reply, 200, 'Account connected', donePage(result.link.platform, result.connection.handle));
  };

  const step = (request: FastifyRequest, reply: FastifyReply, next: LandingStep) => {
    switch (next.kind) {
      case 'redirect':
        return setCookie(reply, bindingCookie, next.binding, { maxAgeSeconds: deps.ttlSeconds, secure })
          .code(302)
          .header('cache-control', 'no-store')
          .header('location', next.location)
          .send();
      case 'server':
        return sendPage(
          reply,
          200,
          'Connect an account',
          serverForm(next.link.platform, request.url.split('?')[0]!),
          formTargets(next.link, true),
        );
      case 'password':
        return sendPage(
          reply,
          200,
          'Connect an account',
          passwordForm(next.link.platform, request.url.split('?')[0]!, next.labels),
          formTargets(next.link, false),
        );
      case 'choose':
        return sendPage(
          reply,
          200,
          'Choose an account',
          choicePage(next.link.platform, next.state, next.accounts),
          formTargets(next.link, false),
        );
    }
  };

  await app.register(async (pages) => {
    await acceptForms(pages);
    await acceptCookies(pages);
    pages.setErrorHandler((error, request, reply) => {
      if (!(error instanceof ConnectFlowError)) return renderPageError(error, request, reply);
      const link = error.link;
      if (
        link &&
        FORM_ERRORS.has(error.code) &&
        request.method === 'POST' &&
        request.url.startsWith('/connect/') &&
        !request.url.startsWith('/connect/choose')
      ) {
        const action = request.url.split('?')[0]!;
        const login = deps.access.registry.get(link.platform)?.passwordLogin;
        return sendPage(
          reply,
          400,
          'Connect an account',
          login
            ? passwordForm(
                link.platform,
                action,
                {
                  identifier: login.identifierLabel,
                  password: login.passwordLabel,
                  server: login.customServer && !link.sandbox,
                },
                error.message,
              )
            : serverForm(link.platform, action, error.message),
          formTargets(link, !login),
        );
      }
      const back = returnUrl(link, { error: error.code, description: error.message });
      if (back) return reply.code(302).header('location', back).header('cache-control', 'no-store').send();
      return sendPage(
        reply,
        error.code === 'link_invalid' ? 404 : 400,
        'Not connected',
        failedPage(error.message, error.code),
      );
    });

    pages.get<{ Querystring: RawQuerystring }>('/connect/callback', hide, async (request, reply) => {
      // A parameter sent twice is ambiguous: keep only single string values (the flow then fails cleanly).
      const query = Object.fromEntries(
        Object.entries(request.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      );
      const result = await handleCallback(deps, query, readCookie(request, bindingCookie));
      return result.kind === 'done' ? finish(reply, result) : step(request, reply, result);
    });

    pages.post('/connect/choose', hide, async (request, reply) =>
      finish(
        reply,
        await chooseAccount(
          deps,
          formField(request.body, 'state'),
          formField(request.body, 'account_id'),
          readCookie(request, bindingCookie),
        ),
      ),
    );

    pages.get<TokenRoute>('/connect/:token', hide, async (request, reply) =>
      step(request, reply, await openLink(deps, request.params.token)),
    );

    pages.post<TokenRoute>('/connect/:token', hide, async (request, reply) => {
      const body = request.body;
      const result = await submitLinkForm(deps, request.params.token, {
        server_url: formField(body, 'server_url'),
        identifier: formField(body, 'identifier'),
        password: formField(body, 'password'),
      });
      return result.kind === 'done' ? finish(reply, result) : step(request, reply, result);
    });
  });
}

// The simulators' stand-in for a platform's sign-in and consent screen: a small page where the end user picks a
// sandbox username and approves or denies, posted back to the authorize route. A request that already names
// `sandbox_username` skips the page and is approved at once (first-start seeding and `add-sandbox` use that).
// Either way a simulated account is only handed out to a flow Herald started: the authorize request carries
// `sandbox_sig`, Herald's signature over it with the sandbox secret (`authorizeSignature` in tokens.ts), unless
// the simulator is reached in-process or is a standalone test rig (its control surface on): `kit.mayNameAccount`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml as escape } from '../../lib/escape-html.ts';
import { parseBody } from './body.ts';
import type { SimulatorKit } from './simulator.ts';

/** Sends the consent page: every authorize parameter travels back as a hidden field. */
export function sendConsentPage(
  reply: FastifyReply,
  o: {
    platform: string;
    action: string;
    params: Record<string, string | undefined>;
    scopes: string;
    defaultUsername: string;
  },
): FastifyReply {
  const hidden = Object.entries(o.params)
    .filter(([name, value]) => value !== undefined && name !== 'sandbox_username' && name !== 'decision')
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(String(value))}">`)
    .join('');
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize an app · ${escape(o.platform)} (sandbox)</title></head>
<body><main><h1>${escape(o.platform)} sandbox: authorize this app?</h1>
<p>It asks for: <code>${escape(o.scopes)}</code></p>
<form method="post" action="${escape(o.action)}">${hidden}
<label>Sign in as <input name="sandbox_username" value="${escape(o.defaultUsername)}"></label>
<button type="submit" name="decision" value="approve">Authorize app</button>
<button type="submit" name="decision" value="deny">Cancel</button>
</form></main></body></html>`;
  return reply.code(200).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);
}

/** Where a denied consent goes: the client's redirect URI with `error=access_denied` (RFC 6749 §4.1.2.1). */
export function deniedRedirect(reply: FastifyReply, redirectUri: string, state: string | undefined): FastifyReply {
  const target = new URL(redirectUri);
  target.searchParams.set('error', 'access_denied');
  target.searchParams.set('error_description', 'The user denied the request.');
  if (state) target.searchParams.set('state', state);
  return reply.code(302).header('location', target.toString()).send();
}

export type AuthorizeQuery = Record<string, string | undefined>;

/** How a simulator answers a refused authorize request, in its platform's error shape. */
export type AuthorizeRefusal = (
  status: 400 | 403,
  error: 'invalid_request' | 'unsupported_response_type' | 'access_denied',
  message: string,
) => FastifyReply;

/**
 * The authorization-code step every OAuth simulator shares: the parameters (the query, and the consent page's form
 * when it posts back), checked (client, redirect URI and scope present, `response_type=code`, a redirect URI that
 * parses), then the consent page for a GET that names no `sandbox_username`, the client's redirect on a denial, and
 * the username checked and allowed (`kit.mayNameAccount`). The approved sign-in, or undefined once the reply is sent.
 */
export async function consentStep(
  kit: Pick<SimulatorKit, 'mayNameAccount'>,
  request: FastifyRequest<{ Querystring: AuthorizeQuery }>,
  reply: FastifyReply,
  platform: string,
  refuse: AuthorizeRefusal,
  /** The name of the client's parameter: `client_id` in OAuth 2.0, `client_key` at TikTok. */
  clientParam = 'client_id',
): Promise<{ q: AuthorizeQuery; redirect: URL; username: string } | undefined> {
  const posted = request.method === 'POST' ? parseBody(request.headers['content-type'], request.body).fields : {};
  const q: AuthorizeQuery = {
    ...request.query,
    ...(Object.fromEntries(Object.entries(posted).filter(([, v]) => typeof v === 'string')) as Record<string, string>),
  };
  for (const name of [clientParam, 'redirect_uri', 'scope'])
    if (!q[name]) return void refuse(400, 'invalid_request', `Missing required parameter: ${name}`);
  if (q.response_type !== 'code') return void refuse(400, 'unsupported_response_type', 'response_type must be code.');
  let redirect: URL;
  try {
    redirect = new URL(q.redirect_uri!);
  } catch {
    return void refuse(400, 'invalid_request', 'redirect_uri is not a URL.');
  }
  if (request.method === 'GET' && !q.sandbox_username)
    return void sendConsentPage(reply, {
      platform,
      action: request.url.split('?')[0]!,
      params: q,
      scopes: q.scope ?? '',
      defaultUsername: 'sandbox_user',
    });
  if (q.decision === 'deny') return void deniedRedirect(reply, redirect.toString(), q.state);
  const username = q.sandbox_username ?? 'sandbox_user';
  if (!/^[A-Za-z0-9_.]{1,64}$/.test(username))
    return void refuse(400, 'invalid_request', 'sandbox_username is not a valid username.');
  // Only a flow Herald started (or a trusted rig) may name the account, and only its own workspace's.
  if (!(await kit.mayNameAccount(request, q, username)))
    return void refuse(403, 'access_denied', 'This sign-in was not started by Herald (no valid sandbox_sig).');
  return { q, redirect, username };
}

// The simulators' stand-in for a platform's sign-in and consent screen: a small page where the end user picks a
// sandbox username and approves or denies, posted back to the authorize route. A request that already names
// `sandbox_username` skips the page and is approved at once (first-start seeding and `add-sandbox` use that).
// Either way a simulated account is only handed out to a flow Herald started: the authorize request carries
// `sandbox_sig`, Herald's signature over it with the sandbox secret (`authorizeSignature` in tokens.ts), unless
// the simulator is reached in-process or is a standalone test rig (its control surface on): `kit.mayNameAccount`.
import type { FastifyReply } from 'fastify';

function escape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

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

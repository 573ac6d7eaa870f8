// The consent page the Meta simulators show at their authorize endpoints (Instagram, Threads): a small HTML form
// standing in for the platform's login and permission dialog. Approve and deny submit back to the same endpoint
// with `decision=approve|deny` and the chosen `sandbox_username`; a request that already names a
// `sandbox_username` is approved at once (the X simulator's convention, used by tests and first-start seeding).

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function consentPage(input: {
  platform: string;
  appId: string;
  scopes: string[];
  query: Record<string, string>;
}): string {
  const hidden = Object.entries(input.query)
    .filter(([k]) => k !== 'decision' && k !== 'sandbox_username')
    .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`)
    .join('\n      ');
  const scopes = input.scopes.map((s) => `<li><code>${escape(s)}</code></li>`).join('');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escape(input.platform)} (sandbox) — allow access?</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}button{font:inherit;padding:.5rem 1rem;margin-right:.5rem}</style></head>
<body>
  <h1>${escape(input.platform)} sandbox</h1>
  <p>The app <strong>${escape(input.appId)}</strong> asks to act for your ${escape(input.platform)} account with these permissions:</p>
  <ul>${scopes}</ul>
  <form method="get" action="">
      ${hidden}
      <p><label>Sandbox account <input name="sandbox_username" value="sandbox_user" pattern="[A-Za-z0-9._]{1,30}" required></label></p>
      <button type="submit" name="decision" value="approve">Allow</button>
      <button type="submit" name="decision" value="deny" formnovalidate>Cancel</button>
  </form>
</body>
</html>`;
}

// The consent screen: who asks (name, kind, where it sends the person back), what it may do (each scope in
// words, deselectable), and where (one workspace, optionally one brand). Server-rendered, no script.
import { SCOPE_DESCRIPTIONS, type Scope } from '../../features/keys/scopes.ts';
import type { MembershipView } from '../../features/users/users.repo.ts';
import { html, type SafeHtml } from '../../http/html.ts';
import { roleAllows } from '../../features/workspaces/roles.ts';
import type { ClientRow } from '../../features/oauth/clients.service.ts';

export interface ConsentView {
  client: ClientRow;
  redirectUri: string;
  email: string;
  memberships: MembershipView[];
  scopes: Scope[];
  /** Scopes left checked (all requested ones the first time). */
  checked: readonly string[];
  target: string | undefined;
  csrf: string;
  sealed: string;
  grantTtlDays: number;
  error?: string;
}

/** The value of the "limit to" choice: a workspace, or one brand of it. */
export function targetValue(workspaceId: string, brandId?: string): string {
  return brandId ? `${workspaceId}/${brandId}` : workspaceId;
}

function targetOptions(memberships: MembershipView[], selected: string | undefined): SafeHtml[] {
  const first = memberships[0] ? targetValue(memberships[0].workspace_id) : undefined;
  const pick = selected ?? first;
  return memberships.map((m) => {
    const all = targetValue(m.workspace_id);
    const label = `${m.workspace_name}${m.mode === 'test' ? ' (test mode)' : ''}`;
    return html`<optgroup label="${label}">
      <option value="${all}" ${pick === all ? html`selected` : ''}>${label} — all brands</option>
      ${m.brands.map((b) => {
        const v = targetValue(m.workspace_id, b.id);
        return html`<option value="${v}" ${pick === v ? html`selected` : ''}>${label} — only ${b.name}${b.is_default ? ' (default brand)' : ''}</option>`;
      })}
    </optgroup>`;
  });
}

/**
 * One scope's checkbox. Only what the person's role allows is offered: a scope no role of theirs allows is shown
 * disabled (so they see what the application will not get), one only some workspaces allow says where.
 */
function scopeChoice(v: ConsentView, s: Scope): SafeHtml {
  const where = v.memberships.filter((m) => roleAllows(m.role, s));
  const offered = where.length > 0;
  const note =
    where.length === v.memberships.length
      ? ''
      : offered
        ? html` <em>(only in ${where.map((m) => m.workspace_name).join(', ')}, where you are an admin or owner)</em>`
        : html` <em>(your role allows it in none of your workspaces)</em>`;
  return html`<label class="scope"><input type="checkbox" name="scope" value="${s}" ${offered && v.checked.includes(s) ? html`checked` : ''} ${offered ? '' : html`disabled`}>
      <span><code>${s}</code> — ${SCOPE_DESCRIPTIONS[s]}${note}</span></label>`;
}

export function consentPage(v: ConsentView): SafeHtml {
  const redirectHost = new URL(v.redirectUri).host;
  const identity =
    v.client.kind === 'cimd'
      ? html`Identified by <code>${v.client.id}</code>.`
      : html`This application registered itself with Herald; the name is its own claim.`;
  return html`<h1>Allow <strong>${v.client.name}</strong> to use your Herald account?</h1>
<div class="card">
  <p class="muted">${identity} After you answer, you return to <strong>${redirectHost}</strong>.</p>
  ${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
  <form method="post" action="/oauth/authorize">
    <input type="hidden" name="csrf" value="${v.csrf}">
    <input type="hidden" name="request" value="${v.sealed}">
    <label for="target">Where it may act</label>
    <select id="target" name="target">${targetOptions(v.memberships, v.target)}</select>
    <label>What it may do</label>
    ${v.scopes.map((s) => scopeChoice(v, s))}
    <p class="muted">Access lasts ${v.grantTtlDays} days unless you revoke it sooner (<code>herald keys list</code>, then <code>herald keys revoke</code>).</p>
    <div class="actions">
      <button class="primary" type="submit" name="decision" value="allow">Allow</button>
      <button type="submit" name="decision" value="deny">Deny</button>
    </div>
  </form>
</div>
<p class="muted">Signed in as ${v.email}.</p>`;
}

// The hosted connect pages an end user sees between the client app and the platform: the instance form, the
// identifier + app password form, the account choice, and the ending (success or error) when the client gave
// no redirect_url. Neutral wording: the user is connecting an account for the app that sent them, not to Herald.
import { html, type SafeHtml } from '../../http/html.ts';
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { ConnectableAccount } from '../../platforms/types.ts';

const nameOf = (platform: PlatformName) => PLATFORM_LIMITS[platform].displayName;

export function serverForm(platform: PlatformName, action: string, error?: string): SafeHtml {
  return html`<h1>Connect your ${nameOf(platform)} account</h1><div class="card">
<form method="post" action="${action}">
${error ? html`<p class="error">${error}</p>` : ''}
<label for="server_url">Your server</label><input id="server_url" name="server_url" type="text" placeholder="mastodon.social" required autofocus style="width:100%;padding:.6rem">
<p class="muted">The address of the server your account is on. You will sign in there and approve the connection.</p>
<div class="actions"><button class="primary" type="submit">Continue</button></div></form></div>`;
}

export function passwordForm(
  platform: PlatformName,
  action: string,
  labels: { identifier: string; password: string; server: boolean },
  error?: string,
): SafeHtml {
  return html`<h1>Connect your ${nameOf(platform)} account</h1><div class="card">
<form method="post" action="${action}">
${error ? html`<p class="error">${error}</p>` : ''}
<label for="identifier">${labels.identifier}</label><input id="identifier" name="identifier" type="text" required autofocus autocomplete="username" style="width:100%;padding:.6rem">
<label for="password">${labels.password}</label><input id="password" name="password" type="password" required autocomplete="off">
${labels.server ? html`<label for="server_url">Server (optional)</label><input id="server_url" name="server_url" type="text" placeholder="https://bsky.social" style="width:100%;padding:.6rem">` : ''}
<p class="muted">Use an app password, never your main password: you can revoke it at any time in your account settings.</p>
<div class="actions"><button class="primary" type="submit">Connect</button></div></form></div>`;
}

export function choicePage(platform: PlatformName, state: string, accounts: ConnectableAccount[]): SafeHtml {
  return html`<h1>Which ${nameOf(platform)} account?</h1><div class="card">
<form method="post" action="/connect/choose"><input type="hidden" name="state" value="${state}">
${accounts.map((a, i) => html`<label class="scope"><input type="radio" name="account_id" value="${a.account.accountId}"${i === 0 ? html` checked` : ''}><span><strong>${a.account.displayName ?? a.account.handle}</strong> <span class="muted">@${a.account.handle}</span></span></label>`)}
<div class="actions"><button class="primary" type="submit">Connect this account</button></div></form></div>`;
}

export function donePage(platform: PlatformName, handle: string): SafeHtml {
  return html`<h1>Account connected</h1><div class="card"><p>Your ${nameOf(platform)} account <strong>@${handle}</strong> is connected. You can close this window.</p></div>`;
}

export function failedPage(message: string, code: string): SafeHtml {
  return html`<h1>The account was not connected</h1><div class="card"><p>${message}</p><p class="muted">Error code: <code>${code}</code></p></div>`;
}

// The sign-in pages, server-rendered (no script): the form, the signed-in page and the error page.
import { html, type SafeHtml } from '../../http/html.ts';

export function signInForm(input: {
  csrf: string;
  returnTo: string | undefined;
  email?: string;
  error?: string;
  purpose?: string;
}): SafeHtml {
  return html`<h1>Sign in to Herald</h1>
<div class="card">
  ${input.purpose ? html`<p class="muted">${input.purpose}</p>` : ''}
  ${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
  <form method="post" action="/login">
    <input type="hidden" name="csrf" value="${input.csrf}">
    ${input.returnTo ? html`<input type="hidden" name="return_to" value="${input.returnTo}">` : ''}
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${input.email ?? ''}" ${input.email ? '' : html`autofocus`}>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required ${input.email ? html`autofocus` : ''}>
    <div class="actions"><button class="primary" type="submit">Sign in</button></div>
  </form>
</div>
<p class="muted">Forgot it? Whoever runs this Herald can set a new one with <code>herald users set-password &lt;email&gt;</code>.</p>`;
}

export function signedInPage(input: { email: string; csrf: string }): SafeHtml {
  return html`<h1>Signed in</h1>
<div class="card">
  <p>You are signed in to Herald as <strong>${input.email}</strong>.</p>
  <form method="post" action="/logout">
    <input type="hidden" name="csrf" value="${input.csrf}">
    <div class="actions"><button type="submit">Sign out</button></div>
  </form>
</div>`;
}

export function messagePage(title: string, message: string, detail?: string): SafeHtml {
  return html`<h1>${title}</h1><div class="card"><p>${message}</p>${detail ? html`<p class="muted">${detail}</p>` : ''}</div>`;
}

// An end user's browser for connect-link tests: it follows redirects between Herald (reached through
// app.inject at http://herald.test) and the simulators (real HTTP), keeps cookies per host, reads and submits
// HTML forms, and stops where a page or a foreign redirect (the client's redirect_url) is reached.
import type { TestApp } from './app.ts';

export interface Step {
  url: string;
  status: number;
  location: string | undefined;
  text: string;
}

const HERALD = 'http://herald.test';

export function createBrowser(t: TestApp) {
  const jars = new Map<string, Map<string, string>>();
  const jar = (host: string) => jars.get(host) ?? jars.set(host, new Map()).get(host)!;
  const cookieHeader = (host: string) => [...jar(host)].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (host: string, setCookie: string | string[] | undefined | null) => {
    for (const line of [setCookie ?? []].flat()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar(host).set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
  };

  async function request(method: string, url: string, form?: Record<string, string>): Promise<Step> {
    const target = new URL(url);
    const body = form ? new URLSearchParams(form).toString() : undefined;
    const headers: Record<string, string> = { cookie: cookieHeader(target.host) };
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (url.startsWith(HERALD)) {
      const res = await t.app.inject({
        method: method as 'GET',
        url: target.pathname + target.search,
        headers,
        payload: body,
      });
      keep(target.host, res.headers['set-cookie'] as string | string[] | undefined);
      return { url, status: res.statusCode, location: res.headers.location as string | undefined, text: res.body };
    }
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    keep(target.host, res.headers.getSetCookie());
    return { url, status: res.status, location: res.headers.get('location') ?? undefined, text: await res.text() };
  }

  /** Follows redirects from `url` until a page answers or the browser is sent outside Herald and the simulators. */
  async function go(
    url: string,
    options: { method?: string; form?: Record<string, string>; stopAt?: string } = {},
  ): Promise<Step> {
    let step = await request(options.method ?? 'GET', url, options.form);
    for (let hops = 0; hops < 10 && step.status >= 300 && step.status < 400 && step.location; hops++) {
      const next = new URL(step.location, step.url).toString();
      if (options.stopAt && next.startsWith(options.stopAt)) return { ...step, location: next };
      step = await request('GET', next);
    }
    return step;
  }

  return { go, request, cookies: (host: string) => jar(host) };
}

/** The first form of a page: its action (absolute) and its fields (hidden and text inputs with a value). */
export function readForm(step: Step): { action: string; fields: Record<string, string> } {
  const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(step.text);
  if (!form) throw new Error(`no form on ${step.url}: ${step.text.slice(0, 300)}`);
  const decode = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input([^>]*)>/gi)) {
    const name = /name="([^"]*)"/.exec(input[1]!)?.[1];
    const value = /value="([^"]*)"/.exec(input[1]!)?.[1];
    if (name && value !== undefined && !/type="radio"/.test(input[1]!)) fields[decode(name)] = decode(value);
  }
  return { action: new URL(decode(form[1]!), step.url).toString(), fields };
}

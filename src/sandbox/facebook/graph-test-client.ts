// What the Facebook simulator's own tests share: raw Graph calls against a running simulator (form, multipart or
// query parameters, the answer parsed whatever it is) and a sign-in that yields a user's long-lived token and
// Page tokens, cached per username so tests in one file reuse them.

/** The fields these tests read from Graph answers (each answer has some of them). */
export interface Answer {
  error: { code: number; error_subcode?: number; type: string; message: string };
  id: string;
  post_id: string;
  message: string;
  created_time: string;
  permalink_url: string;
  access_token: string;
  data: Array<{ id: string; access_token: string; message: string; created_time: string; permalink_url: string }>;
  paging: { next: string; cursors: { after: string } };
  video_id: string;
  upload_session_id: string;
  start_offset: string;
  end_offset: string;
  status: { video_status: string };
  published: boolean;
}

export interface SignedIn {
  user: string;
  pages: Array<{ id: string; access_token: string }>;
}

export interface GraphTestClient {
  graph(
    method: string,
    path: string,
    params?: Record<string, string>,
    body?: FormData,
  ): Promise<{ status: number; json: Answer; headers: Headers }>;
  /** Signs in through the dialog with `sandbox_username`, exchanges for a long-lived token, lists the Pages. */
  signIn(username: string): Promise<SignedIn>;
}

/** A client of the simulator at `base()` (read at each call: the sandbox starts after the module loads). */
export function graphTestClient(base: () => string): GraphTestClient {
  const tokens: Record<string, SignedIn> = {};

  async function graph(method: string, path: string, params: Record<string, string> = {}, body?: FormData) {
    const url = new URL(`${base()}${path}`);
    let init: RequestInit = { method, redirect: 'manual' };
    if (method === 'GET' || method === 'DELETE')
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    else if (body) {
      for (const [k, v] of Object.entries(params)) body.set(k, v);
      init = { ...init, body };
    } else init = { ...init, body: new URLSearchParams(params) };
    const res = await fetch(url, init);
    const text = await res.text();
    return {
      status: res.status,
      json: (text.startsWith('{') ? JSON.parse(text) : { text }) as Answer,
      headers: res.headers,
    };
  }

  async function signIn(username: string): Promise<SignedIn> {
    if (tokens[username]) return tokens[username];
    const redirect = 'https://app.example/cb';
    const dialog = await fetch(
      `${base()}/v23.0/dialog/oauth?client_id=a&redirect_uri=${encodeURIComponent(redirect)}&state=s&scope=pages_show_list,pages_manage_posts,pages_read_engagement&sandbox_username=${username}`,
      { redirect: 'manual' },
    );
    const code = new URL(dialog.headers.get('location')!).searchParams.get('code')!;
    const short = await graph('GET', '/v23.0/oauth/access_token', {
      client_id: 'a',
      client_secret: 'b',
      redirect_uri: redirect,
      code,
    });
    const long = await graph('GET', '/v23.0/oauth/access_token', {
      grant_type: 'fb_exchange_token',
      client_id: 'a',
      client_secret: 'b',
      fb_exchange_token: short.json.access_token,
    });
    const pages = await graph('GET', '/v23.0/me/accounts', { access_token: long.json.access_token });
    tokens[username] = { user: long.json.access_token, pages: pages.json.data };
    return tokens[username];
  }

  return { graph, signIn };
}

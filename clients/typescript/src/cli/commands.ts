// The commands of `herald-client` (the entry is main.ts): Herald's API from a shell or a CI job (docs/ci-cd.md). Configured by HERALD_URL,
// HERALD_API_KEY and optionally HERALD_WORKSPACE; commands `post`, `posts list`, `posts get`, `posts cancel`.
// Exit codes: 0 ok, 1 a target failed, 2 invalid input, 3 authentication or permission, 4 Herald unavailable.
import { parseArgs } from 'node:util';
import { createHerald, type Herald } from '../client.js';
import { errorLines, EXIT, exitCodeOf, targetLines, UsageError, type Io, type PostView } from './output.js';
import { postCommand } from './post.js';

const USAGE = `Usage: herald-client <command> [options]

Commands:
  post [content]        Create a post and publish it now, or schedule it (--schedule-at)
      --file <path>         Read the content from a file instead
      --platform <name>     A platform to post on (repeat for several; required)
      --schedule-at <time>  ISO 8601 with Z or an offset, or a local time with --timezone
      --timezone <zone>     IANA zone for a local --schedule-at (e.g. Europe/Paris)
      --media <file|URL>    Attach an image or video (repeat); files are uploaded, URLs fetched by Herald
      --draft               Create a draft instead of publishing now
      --dry-run             Only validate; nothing is created
      --wait                Follow the post until every target is final; exit 1 if any failed
      --wait-timeout <s>    How long --wait waits (default 600)
      --idempotency-key <k> Default: derived from the CI run's ids and the post's content
  posts list [--status <s>] [--limit <n>]
  posts get <post-id>
  posts cancel <post-id>

Every command takes --json (machine-readable output on stdout) and --help.

Environment: HERALD_URL (e.g. https://herald.example.com), HERALD_API_KEY, HERALD_WORKSPACE (optional: the
workspace id, when the key reaches several).

Exit codes: 0 published, scheduled or valid; 1 a target failed; 2 invalid input; 3 authentication or
permission; 4 Herald unreachable or failing (5xx) after retries.`;

const OPTIONS = {
  file: { type: 'string' },
  platform: { type: 'string', multiple: true },
  'schedule-at': { type: 'string' },
  timezone: { type: 'string' },
  media: { type: 'string', multiple: true },
  draft: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  wait: { type: 'boolean' },
  'wait-timeout': { type: 'string' },
  'idempotency-key': { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function connect(env: NodeJS.ProcessEnv): Herald {
  const baseUrl = env.HERALD_URL?.trim();
  const apiKey = env.HERALD_API_KEY?.trim();
  if (!baseUrl)
    throw new UsageError('HERALD_URL is not set (the address of your Herald, e.g. https://herald.example.com)');
  if (!/^https?:\/\//i.test(baseUrl))
    throw new UsageError(`HERALD_URL must start with https:// or http:// (got ${baseUrl})`);
  if (!apiKey) throw new UsageError('HERALD_API_KEY is not set (create one with `herald keys create`)');
  const workspaceId = env.HERALD_WORKSPACE?.trim() || undefined;
  return createHerald({ baseUrl, apiKey, workspaceId, idempotencyKeys: true });
}

function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${name} must be a positive whole number`);
  return Number(value);
}

function postId(positionals: string[]): string {
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new UsageError('give exactly one post id');
  return id;
}

export async function main(argv: string[], io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    const [command, ...rest] = positionals;
    if (values.help || command === undefined || command === 'help') {
      io.out(USAGE);
      return command === undefined && !values.help ? EXIT.invalid : EXIT.ok;
    }
    if (command === 'post') {
      if (rest.length > 1) throw new UsageError('give the content as one argument (quote it) or with --file');
      return await postCommand(
        connect(env),
        {
          content: rest[0],
          file: values.file,
          platform: values.platform ?? [],
          scheduleAt: values['schedule-at'],
          timezone: values.timezone,
          media: values.media ?? [],
          draft: values.draft ?? false,
          dryRun: values['dry-run'] ?? false,
          wait: values.wait ?? false,
          waitTimeoutSeconds: positiveInteger(values['wait-timeout'], 'wait-timeout', 600),
          idempotencyKey: values['idempotency-key'],
          json: values.json ?? false,
          workspace: env.HERALD_WORKSPACE?.trim() || undefined,
          env,
        },
        io,
        process.stderr,
      );
    }
    if (command !== 'posts') throw new UsageError(`unknown command ${command}`);
    const [sub, ...args] = rest;
    const herald = connect(env);
    if (sub === 'list') {
      const query: Record<string, unknown> = { limit: positiveInteger(values.limit, 'limit', 20) };
      if (values.status) query.status = values.status;
      const page = (await herald.GET('/posts', { params: { query } as never })) as {
        items: PostView[];
        has_more: boolean;
      };
      if (values.json) io.out(JSON.stringify(page));
      else {
        for (const post of page.items)
          io.out(`${post.id}  ${post.status.padEnd(19)}  ${(post.content ?? '').replace(/\s+/g, ' ').slice(0, 60)}`);
        if (page.items.length === 0) io.out('(no posts)');
        if (page.has_more) io.out('(more posts: raise --limit)');
      }
      return EXIT.ok;
    }
    if (sub === 'get' || sub === 'cancel') {
      const id = postId(args);
      const post = (
        sub === 'get'
          ? await herald.GET('/posts/{id}', { params: { path: { id } } })
          : await herald.POST('/posts/{id}/cancel', { params: { path: { id } } })
      ) as PostView;
      if (values.json) io.out(JSON.stringify(post));
      else {
        io.out(`${sub === 'cancel' ? 'cancelled ' : ''}post ${post.id}: ${post.status}`);
        for (const line of targetLines(post)) io.out(line);
      }
      return EXIT.ok;
    }
    throw new UsageError(`unknown command posts ${sub ?? ''}`.trim());
  } catch (error) {
    // node:util's parseArgs refuses unknown options and missing values: a usage mistake, exit 2.
    const failure = (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
      ? new UsageError((error as Error).message)
      : error;
    for (const line of errorLines(failure)) io.err(line);
    return exitCodeOf(failure);
  }
}

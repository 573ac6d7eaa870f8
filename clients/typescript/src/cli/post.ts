// `herald-client post`: one command for a pipeline's announcement. Validates (--dry-run) or creates the post with
// its media, scheduled (--schedule-at) or published at once, then optionally follows it (--wait) until every target
// is final, printing each target's URL; exit 1 when a target failed (docs/ci-cd.md).
import { readFile } from 'node:fs/promises';
import type { Herald } from '../client.js';
import { HeraldError } from '../errors.js';
import { sleep } from '../transport.js';
import { createMedia, readMediaSource } from './media.js';
import {
  describePost,
  EXIT,
  FINAL_TARGET_STATUSES,
  targetLines,
  UsageError,
  type Io,
  type PostView,
} from './output.js';
import { pipelineKey } from './pipeline-key.js';

export interface PostOptions {
  content?: string;
  file?: string;
  platform: string[];
  scheduleAt?: string;
  timezone?: string;
  media: string[];
  dryRun: boolean;
  wait: boolean;
  waitTimeoutSeconds: number;
  idempotencyKey?: string;
  json: boolean;
  draft: boolean;
  workspace?: string;
  /** The environment, for the pipeline's run identifiers (pipeline-key.ts). */
  env: Record<string, string | undefined>;
}

/** An ISO 8601 time with `Z` or an offset, or a local time that --timezone places. */
const ABSOLUTE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/i;
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

function checkSchedule(scheduleAt: string | undefined, timezone: string | undefined): void {
  if (timezone !== undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: timezone });
    } catch {
      throw new UsageError(`--timezone ${timezone} is not an IANA time zone (e.g. Europe/Paris)`);
    }
  }
  if (scheduleAt === undefined) return;
  if (ABSOLUTE.test(scheduleAt) && !Number.isNaN(Date.parse(scheduleAt))) return;
  if (LOCAL.test(scheduleAt) && timezone !== undefined) return;
  throw new UsageError(
    `--schedule-at ${scheduleAt}: give an ISO 8601 time with its zone (2026-12-01T09:00:00Z, 2026-12-01T10:00+01:00), or a local time with --timezone`,
  );
}

async function readContent(options: PostOptions): Promise<string> {
  if (options.content !== undefined && options.file !== undefined)
    throw new UsageError('give the content as an argument or with --file, not both');
  if (options.file !== undefined) {
    try {
      return (await readFile(options.file, 'utf8')).replace(/\s+$/, '');
    } catch {
      throw new UsageError(`--file ${options.file}: cannot read it`);
    }
  }
  if (options.content === undefined || options.content.trim() === '')
    throw new UsageError('the post needs content: herald-client post "text" or --file <path>');
  return options.content;
}

export async function postCommand(herald: Herald, options: PostOptions, io: Io, stderr: NodeJS.WriteStream) {
  const content = await readContent(options);
  if (options.platform.length === 0) throw new UsageError('name at least one --platform (repeat it for several)');
  checkSchedule(options.scheduleAt, options.timezone);
  if (options.draft && options.scheduleAt) throw new UsageError('--draft and --schedule-at exclude each other');
  if (options.draft && options.wait) throw new UsageError('--wait follows a post that goes out; a --draft does not');
  const sources = await Promise.all(options.media.map(readMediaSource));
  const body: Record<string, unknown> = { content, platforms: options.platform };
  if (options.scheduleAt) body.schedule_at = options.scheduleAt;
  if (options.timezone) body.timezone = options.timezone;
  if (!options.scheduleAt && !options.draft) body.publish_now = true;

  if (options.dryRun) {
    // Nothing is stored: the text and platforms are checked by Herald, the media only here (they exist, their type).
    // Herald sees no media then, so its "needs an image or video" is answered by the --media given.
    const checked = (await herald.POST('/posts/validate', { body: body as never })) as {
      valid: boolean;
      issues?: Array<{ platform?: string | null; rule?: string; message?: string; severity?: string }>;
    };
    const issues = (checked.issues ?? []).filter((i) => !(sources.length > 0 && i.rule === 'media_required'));
    const result = { ...checked, valid: issues.length === 0, issues };
    if (options.json) io.out(JSON.stringify(result));
    else {
      io.out(result.valid ? 'dry run: the post is valid; nothing was created' : 'dry run: the post is not valid');
      for (const issue of issues)
        io.out(`  - ${[issue.severity, issue.platform, issue.rule].filter(Boolean).join(' · ')}: ${issue.message}`);
      for (const s of sources) io.out(`  media ${s.given}: ${s.url ? 'URL, fetched by Herald' : 'file found'}`);
    }
    return result.valid ? EXIT.ok : EXIT.invalid;
  }

  const key =
    options.idempotencyKey ??
    pipelineKey(options.env, {
      content,
      platforms: options.platform,
      scheduleAt: options.scheduleAt,
      timezone: options.timezone,
      media: sources.map((s) => s.identity),
      workspace: options.workspace,
    });
  const mediaIds: string[] = [];
  for (const [i, source] of sources.entries())
    mediaIds.push(await createMedia(herald, source, key ? `${key}:media:${i}` : undefined, stderr));
  if (mediaIds.length > 0) body.media_ids = mediaIds;

  const { data, response } = await herald.api.POST('/posts', {
    body: body as never,
    headers: key ? { 'idempotency-key': key } : {},
  });
  if (!response.ok) throw await HeraldError.fromResponse(response);
  const created = (data as unknown as { data: { post: PostView } }).data.post;
  const replayed = response.headers.get('idempotent-replayed') === 'true';
  let post = created;
  if (!options.json) {
    io.out(
      replayed
        ? `${describePost(post)} (already created by an earlier run with the same key; nothing new was posted)`
        : `created ${describePost(post)}`,
    );
  }
  if (options.wait)
    post = await waitUntilFinal(herald, created.id, options.waitTimeoutSeconds, options.json ? undefined : io);
  if (options.json) io.out(JSON.stringify({ ...post, replayed }));
  else for (const line of targetLines(post)) io.out(line);
  if (!options.wait) return EXIT.ok;
  const failed = (post.targets ?? []).filter((t) => t.status !== 'published');
  if (failed.length === 0) return EXIT.ok;
  io.err(
    `${failed.length} of ${post.targets?.length ?? 0} targets did not publish: ${failed.map((t) => `${t.platform} ${t.status}`).join(', ')}`,
  );
  return EXIT.targetFailed;
}

/** Reads the post until every target is final (published, failed, cancelled), or the timeout passes. */
export async function waitUntilFinal(herald: Herald, id: string, timeoutSeconds: number, io?: Io): Promise<PostView> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let said = '';
  for (let every = 500; ; every = Math.min(every * 2, 5000)) {
    const post = (await herald.GET('/posts/{id}', { params: { path: { id } } })) as PostView;
    const targets = post.targets ?? [];
    if (targets.length > 0 && targets.every((t) => FINAL_TARGET_STATUSES.has(t.status))) return post;
    const progress = targets.map((t) => `${t.platform} ${t.status}`).join(', ');
    if (io && progress !== said) io.out(`waiting: ${progress}`);
    said = progress;
    if (Date.now() > deadline) {
      io?.err(`gave up waiting after ${timeoutSeconds} s (--wait-timeout)`);
      return post;
    }
    await sleep(Math.min(every, Math.max(0, deadline - Date.now()) + 10));
  }
}

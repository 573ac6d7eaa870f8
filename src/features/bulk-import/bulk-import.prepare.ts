// One import row checked the way `POST /v1/posts` checks a post (docs/queues.md "Bulk import"), shared by the dry
// run and the job: the row becomes a post body (bulk-import.rows.ts), its connections name its platforms when it
// names no platforms, its media URLs pass the SSRF guard, and then the posts validator applies every platform rule.
import type { ServiceContext } from '../../app/context.ts';
import type { ErrorDetail } from '../../app/errors.ts';
import { OutboundBlockedError, type OutboundGuard } from '../../lib/ssrf.ts';
import type { PostsService } from '../posts/posts.service.ts';
import type { CreatePostBody } from '../posts/posts.schemas.ts';
import { connectionPlatforms } from './bulk-import.repo.ts';
import { convertRow, fieldOf, rowFromRecord, type RowError } from './bulk-import.rows.ts';

export interface PrepareDeps {
  guard: OutboundGuard;
  posts: Pick<PostsService, 'validate'>;
}

export type Prepared = { body: CreatePostBody; mediaUrls: string[] } | { errors: RowError[] };

/** A problem the posts API reported (a rule, a body check) as a row error naming the column. */
export function rowErrorOf(detail: ErrorDetail, csv: boolean, code?: string): RowError {
  return {
    code: detail.rule ?? code ?? 'invalid',
    message: detail.message,
    field: detail.path ? fieldOf(detail.path, csv) : null,
    platform: detail.platform ?? null,
  };
}

/** The row as a post body ready to create, or its errors; `urls` remembers guard answers across rows. */
export async function prepareRow(
  deps: PrepareDeps,
  ctx: ServiceContext,
  input: Record<string, unknown>,
  csv: boolean,
  urls: Map<string, RowError | null>,
): Promise<Prepared> {
  const { row, errors } = csv
    ? rowFromRecord(input as Record<string, string>)
    : { row: input, errors: [] as RowError[] };
  const converted = convertRow(row, csv);
  if ('errors' in converted) return { errors: [...errors, ...converted.errors] };
  if (converted.needsPlatformsFrom) {
    const known = await connectionPlatforms(ctx.db, ctx.workspaceId, converted.needsPlatformsFrom);
    for (const id of converted.needsPlatformsFrom)
      if (!known.has(id))
        errors.push({
          code: 'connection_unknown',
          message: `No connection ${id} in this workspace.`,
          field: 'connection_ids',
          platform: null,
        });
    converted.body.platforms = [...new Set(known.values())] as CreatePostBody['platforms'];
  }
  for (const url of converted.mediaUrls) {
    if (!urls.has(url)) urls.set(url, await checkUrl(deps.guard, url));
    const problem = urls.get(url);
    if (problem) errors.push(problem);
  }
  if (errors.length > 0) return { errors };
  return { body: converted.body, mediaUrls: converted.mediaUrls };
}

async function checkUrl(guard: OutboundGuard, url: string): Promise<RowError | null> {
  try {
    await guard.checkUrl(url);
    return null;
  } catch (error) {
    if (!(error instanceof OutboundBlockedError)) throw error;
    const code = error.code.startsWith('url_') ? error.code : `url_${error.code}`;
    return { code, message: `${url} cannot be fetched: ${error.message}`, field: 'media_urls', platform: null };
  }
}

/** Every rule of `POST /v1/posts/validate` on a prepared row: the errors, and what each platform would publish. */
export async function validateRow(
  deps: PrepareDeps,
  ctx: ServiceContext,
  prepared: { body: CreatePostBody; mediaUrls: string[] },
  csv: boolean,
): Promise<{ errors: RowError[]; preview: { platform: string; text: string }[] }> {
  const result = await deps.posts.validate(ctx, prepared.body, prepared.mediaUrls.length);
  return {
    errors: result.issues.map((issue) => rowErrorOf(issue, csv)),
    preview: result.applied.map((a) => ({ platform: a.platform, text: a.text })),
  };
}

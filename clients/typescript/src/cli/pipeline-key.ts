// The Idempotency-Key `herald-client post` sends when none is given: the CI run's identity together with a hash of
// what is posted. A job re-run in the same pipeline run sends the same key, so Herald answers with the post it
// already made instead of a second one; two different posts in one run hash differently and never collide.
import { createHash } from 'node:crypto';

/**
 * Each CI system's run identifier, most specific first. The attempt numbers (GITHUB_RUN_ATTEMPT,
 * SYSTEM_JOBATTEMPT …) and per-job ids (CI_JOB_ID) are left out on purpose: they change when a job is re-run,
 * which is exactly the case that must not post twice.
 */
export const PIPELINE_IDS: ReadonlyArray<{ system: string; variables: readonly string[] }> = [
  { system: 'github', variables: ['GITHUB_REPOSITORY', 'GITHUB_RUN_ID'] },
  { system: 'gitlab', variables: ['CI_PROJECT_ID', 'CI_PIPELINE_ID'] },
  { system: 'azure', variables: ['SYSTEM_TEAMPROJECTID', 'BUILD_BUILDID'] },
  { system: 'buildkite', variables: ['BUILDKITE_BUILD_ID'] },
  { system: 'circleci', variables: ['CIRCLE_WORKFLOW_ID'] },
  { system: 'bitbucket', variables: ['BITBUCKET_REPO_UUID', 'BITBUCKET_BUILD_NUMBER'] },
  { system: 'jenkins', variables: ['BUILD_TAG'] },
];

/** The run this process belongs to, as `system:id…`, or undefined outside a known CI system. */
export function pipelineRun(env: Record<string, string | undefined>): string | undefined {
  for (const { system, variables } of PIPELINE_IDS) {
    const values = variables.map((name) => env[name]?.trim());
    // The last variable is the run id itself; the ones before it only widen it (the repository, the project).
    if (values.at(-1)) return [system, ...values.map((v) => v ?? '')].join(':');
  }
  return undefined;
}

/** What makes two posts "the same post" for the key: everything the command was asked to send. */
export interface PostIdentity {
  content: string;
  platforms: readonly string[];
  scheduleAt?: string;
  timezone?: string;
  /** Each --media as given: a URL, or a file's name and SHA-256. */
  media: readonly string[];
  workspace?: string;
}

export function contentHash(post: PostIdentity): string {
  const canonical = JSON.stringify([
    post.content,
    [...post.platforms].sort(),
    post.scheduleAt ?? null,
    post.timezone ?? null,
    post.media,
    post.workspace ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

/** The key to send: the run and the content hash, or undefined outside CI (a fresh random key then). */
export function pipelineKey(env: Record<string, string | undefined>, post: PostIdentity): string | undefined {
  const run = pipelineRun(env);
  if (!run) return undefined;
  // Idempotency keys are at most 255 printable characters; a run id is short, but a repository name may not be.
  const prefix = `herald-client:${run}`.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
  return `${prefix}:${contentHash(post)}`;
}

// Every minute: evergreen recycling's pass (src/features/recycling/recycling.copies.ts) — the copies due within the
// hour made as new posts, each rule moved to its next occurrence. Safe on every worker at once: a rule is taken with
// its row locked (SKIP LOCKED) and its copy and advance commit together.
import { recycleDuePosts, type CopyDeps } from '../../features/recycling/recycling.copies.ts';

export function recyclePostsTask(deps: CopyDeps) {
  return async function recyclePosts(): Promise<void> {
    const made = await recycleDuePosts(deps);
    if (made > 0) deps.logger.info({ made }, 'recycled copies made');
  };
}

// Runs one bulk import (src/features/bulk-import/bulk-import.run.ts), queued with job key `import_posts:<id>` in
// the transaction that recorded it. Retried after a crash (the rows already recorded are skipped); the last attempt
// fails the import rather than leaving it running.
import { runImportJob, type ImportRunDeps } from '../../features/bulk-import/bulk-import.run.ts';

export function importPostsTask(deps: ImportRunDeps) {
  return async function importPosts(
    payload: unknown,
    helpers: { job: { attempts: number; max_attempts: number } },
  ): Promise<void> {
    await runImportJob(
      deps,
      payload as { workspace_id: string; import_id: string },
      helpers.job.attempts >= helpers.job.max_attempts,
    );
  };
}

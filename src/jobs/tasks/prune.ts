// Retention jobs delete in batches, so each statement (and its locks) stays short: the loop they share.

/** Calls `prune(batch)` until it removes fewer than `batch` rows; returns how many went in all. */
export async function pruneInBatches(prune: (batch: number) => Promise<number>, batch = 5000): Promise<number> {
  let removed = 0;
  let last: number;
  do {
    last = await prune(batch);
    removed += last;
  } while (last === batch);
  return removed;
}

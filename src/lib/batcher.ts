// Group commit: callers hand in one item each and await its own result, while the items that arrive together
// share one run of `run` (one round trip, one transaction) instead of one each. Nothing waits for a batch to
// fill: the first item is taken on the next turn of the event loop with whatever arrived alongside it, and
// items that arrive while a batch is running form the next one — so under load batches grow by themselves
// and with a single caller the cost is one setImmediate.
//
// A batch that throws is not allowed to fail its neighbours: each of its items is then run on its own, so only
// the item that is really at fault (or a genuinely unavailable database) rejects.

export interface BatcherOptions {
  /** Most items in one run. */
  max: number;
  /** Most runs at once. */
  parallel: number;
}

interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

/** `run` receives the items and must return one result per item, in the same order. */
export function batcher<I, O>(run: (items: I[]) => Promise<O[]>, options: BatcherOptions): (item: I) => Promise<O> {
  const queue: Waiting<I, O>[] = [];
  let running = 0;
  let scheduled = false;

  const execute = async (batch: Waiting<I, O>[]): Promise<void> => {
    try {
      const results = await run(batch.map((w) => w.item));
      if (results.length !== batch.length)
        throw new Error(`batch returned ${results.length} results for ${batch.length} items`);
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const w of batch) {
        try {
          w.resolve((await run([w.item]))[0]!);
        } catch (alone) {
          w.reject(alone);
        }
      }
    }
  };

  const pump = () => {
    scheduled = false;
    while (running < options.parallel && queue.length > 0) {
      running++;
      void execute(queue.splice(0, options.max)).finally(() => {
        running--;
        pump();
      });
    }
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!scheduled && running < options.parallel) {
        scheduled = true;
        setImmediate(pump);
      }
    });
}

// Waiting in tests: poll with a generous ceiling and print the latency seen; never a timed assertion (the
// machine is shared and noisy).

export async function pollFor<T>(
  label: string,
  probe: () => Promise<T | undefined | false>,
  ceilingMs = 30_000,
  everyMs = 50,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) {
      console.log(`# ${label}: ${Date.now() - started} ms`);
      return value;
    }
    if (Date.now() - started > ceilingMs) throw new Error(`${label}: not reached within ${ceilingMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

// Waiting in tests: poll a condition with a generous ceiling and print how long it took (never a timed
// assertion: the machine is shared and noisy).

export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  options: { label: string; ceilingMs?: number; everyMs?: number },
): Promise<number> {
  const started = Date.now();
  const ceiling = options.ceilingMs ?? 15_000;
  for (;;) {
    if (await condition()) {
      const waited = Date.now() - started;
      console.log(`# waited ${waited} ms for ${options.label}`);
      return waited;
    }
    if (Date.now() - started > ceiling) throw new Error(`Timed out after ${ceiling} ms waiting for ${options.label}`);
    await new Promise((r) => setTimeout(r, options.everyMs ?? 20));
  }
}

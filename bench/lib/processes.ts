// Child processes the benchmarks measure: Herald started the way `npm start` starts it, the floors, and the
// load generator. Memory is read from /proc/<pid>/status (VmRSS), so it is the measured process's own, never
// the driver's or the load generator's.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
export { freePort } from '../../test/helpers/ports.ts';

export const REPO = path.resolve(import.meta.dirname, '../..');
export const MIB = 1024 * 1024;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident set size of a process in bytes, from /proc/<pid>/status. */
export async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!kib) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib[1]) * 1024;
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat (clock ticks of 1/100 s). */
export async function cpuOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds used so far by every process whose command name is `name` (e.g. all of a PostgreSQL server's). */
export async function cpuOfAll(name: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if ((await readFile(`/proc/${entry}/comm`, 'utf8')).trim() === name) total += await cpuOf(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Samples a process's RSS every `everyMs` until stopped; reports the first sample and the peak. */
export function sampleRss(pid: number, everyMs = 25): { stop(): Promise<{ first: number; peak: number }> } {
  let first = 0;
  let peak = 0;
  let pending: Promise<void> = Promise.resolve();
  const take = () => {
    pending = rssOf(pid).then(
      (rss) => {
        if (first === 0) first = rss;
        peak = Math.max(peak, rss);
      },
      () => {},
    );
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await pending;
      return { first, peak };
    },
  };
}

/** Polls `url` until it answers 200 or the ceiling passes; returns the milliseconds it took. */
export async function waitForOk(url: string, ceilingMs: number, child?: ChildProcess): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (child && child.exitCode !== null)
      throw new Error(`the process exited with ${child.exitCode} before ${url} answered`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - started;
    } catch {
      // not listening yet
    }
    if (performance.now() - started > ceilingMs) throw new Error(`${url} did not answer 200 within ${ceilingMs} ms`);
    await sleep(20);
  }
}

/** SIGTERM, then SIGKILL if the process is still there after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Runs a Node script to completion and returns its stdout (stderr passes through). */
export function runNode(args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`node ${args.join(' ')} exited with ${code}`)),
    );
  });
}

/** Starts a long-running Node script that prints one JSON line `{ "url": … }` when it listens. */
export async function startNodeServer(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        child.stdout!.off('data', onData);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code} before listening`)));
  });
  child.stdout!.resume();
  return { child, url, pid: child.pid!, stop: () => stopChild(child) };
}

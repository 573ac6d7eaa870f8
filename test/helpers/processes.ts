// Herald as real child processes (`bin/herald.js …`), for tests that need several processes on one database.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '..', '..', 'bin', 'herald.js');

export interface HeraldProcess {
  child: ChildProcess;
  /** Resolves with the base URL once the server logs that it listens. */
  url: Promise<string>;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnHerald(args: string[], env: Record<string, string>): HeraldProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, HERALD_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*herald is listening/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) =>
      reject(new Error(`herald ${args.join(' ')} exited with ${code} before listening:\n${output}`)),
    );
  });
  url.catch(() => {});
  return {
    child,
    url,
    output: () => output,
    stop(signal = 'SIGTERM') {
      // Already gone (exited, or killed by a signal: then exitCode stays null and signalCode is set).
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
      return new Promise((resolve) => {
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}

/** Runs a CLI command to completion. */
export function runHerald(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Polls `check` until it returns true or the ceiling passes; returns the milliseconds it took. */
export async function pollUntil(check: () => Promise<boolean>, ceilingMs: number, everyMs = 25): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < ceilingMs) {
    if (await check()) return Math.round(performance.now() - started);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${ceilingMs} ms`);
}

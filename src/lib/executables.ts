// Finding an optional system program (FFmpeg's ffprobe and ffmpeg) on the PATH. Pure over its arguments: the PATH
// is handed in by src/config.ts, the only reader of the environment.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** The first executable called `name` in the directories of `pathVariable`, or null. */
export function findOnPath(name: string, pathVariable: string | undefined): string | null {
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** A program setting: `off` disables it, a path names it, unset looks for `name` on the PATH. */
export function resolveProgram(
  setting: string | undefined,
  name: string,
  pathVariable: string | undefined,
): string | null {
  if (setting === 'off') return null;
  if (setting) return setting;
  return findOnPath(name, pathVariable);
}

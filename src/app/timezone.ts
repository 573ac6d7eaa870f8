// An unknown time zone, answered the same on every endpoint (docs/decisions.md "One answer for an unknown time
// zone"): a 422 `timezone_unknown` at the field that named it, whether Node's zone data lacks the name or only
// PostgreSQL's does (the two are released apart).
import { canonicalZone } from '../lib/timezone.ts';
import { validationFailed, type AppError } from './errors.ts';

function unknownZone(name: string, path: string): AppError {
  return validationFailed([
    {
      path,
      rule: 'timezone_unknown',
      message: `"${name}" is not an IANA time zone name (e.g. "Europe/Paris", "America/New_York").`,
    },
  ]);
}

/** The canonical spelling of the zone `name`; a 422 `timezone_unknown` at `path` for a name that is not a zone. */
export function knownZone(name: string, path: string): string {
  const zone = canonicalZone(name);
  if (!zone) throw unknownZone(name, path);
  return zone;
}

/** PostgreSQL's refusal of a zone (22023 "time zone … not recognized") as the same 422; any other error as it is. */
export function zoneRefusedByDatabase(error: unknown, name: string, path: string): unknown {
  const { code, message } = error as { code?: string; message?: string };
  return code === '22023' && /time zone/i.test(message ?? '') ? unknownZone(name, path) : error;
}

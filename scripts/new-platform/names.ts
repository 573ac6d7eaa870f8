// The names a platform goes by (folder, identifiers, constants, display name), the checks that refuse a bad one,
// and the token replacement that turns a template into a file; shared by the entry and the registry edits.

/** The placeholder text limit of a new platform. */
export const DEFAULT_MAX_LENGTH = 500;
/** The marker every platform-specific placeholder carries. */
export const MARKER = 'FILL IN:';

export class ScaffoldError extends Error {}

// Names that cannot be identifiers (the catalogue imports `limits as <name>`).
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await async of'
  ).split(' '),
);

export interface Names {
  /** `acme`: folder, platform name, object keys. */
  name: string;
  /** `Acme`: in identifiers (`createAcmeAdapter`). */
  pascal: string;
  /** `ACME`: in constants (`ACME_ERRORS`). */
  upper: string;
  /** What people call it: `Acme`, `TikTok`, `Google Business Profile`. */
  display: string;
}

export function namesOf(name: string, display?: string): Names {
  if (!/^[a-z][a-z0-9]*$/.test(name))
    throw new ScaffoldError(
      `"${name}" is not a valid platform name: lowercase letters and digits only, starting with a letter (e.g. tiktok).`,
    );
  if (RESERVED.has(name)) throw new ScaffoldError(`"${name}" is a JavaScript reserved word; choose another name.`);
  const shown = (display ?? name.charAt(0).toUpperCase() + name.slice(1)).trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9 .+!-]*$/.test(shown))
    throw new ScaffoldError(
      `--display must be a plain name: letters, digits, spaces and . + ! - (got ${JSON.stringify(display)}).`,
    );
  return { name, pascal: name.charAt(0).toUpperCase() + name.slice(1), upper: name.toUpperCase(), display: shown };
}

/** Replaces the template tokens: __p__ name, __P__ Pascal, __PU__ upper, __D__ display. */
export function fill(template: string, n: Names): string {
  return template
    .replaceAll('__PU__', n.upper)
    .replaceAll('__P__', n.pascal)
    .replaceAll('__p__', n.name)
    .replaceAll('__D__', n.display)
    .replaceAll('__MAX__', String(DEFAULT_MAX_LENGTH));
}

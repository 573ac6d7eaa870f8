// Every edit scripts/new-platform.ts makes to an existing file: each found by its anchor (a pattern in today's
// file), with an error that names the file and the anchor when it is missing.
import { DEFAULT_MAX_LENGTH, MARKER, ScaffoldError, type Names } from './names.ts';

function anchorMissing(file: string, what: string): never {
  throw new ScaffoldError(
    `${file}: cannot find ${what}. The file changed since scripts/new-platform.ts was written: add the entry by hand ` +
      `or update the script's anchor (nothing was written).`,
  );
}

/** The index just past the brace that closes the one at `open`, skipping strings and comments. */
function closingBrace(text: string, open: number, close = '}', opener = '{'): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      i = text.indexOf('\n', i);
      if (i < 0) return -1;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i) + 1;
      if (i <= 0) return -1;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
      continue;
    }
    if (c === opener) depth++;
    else if (c === close && --depth === 0) return i;
  }
  return -1;
}

/** Adds `entry` as the last member of the object literal whose opening brace ends the match of `start`. */
function addObjectEntry(text: string, file: string, start: RegExp, entry: string, what: string): string {
  const m = start.exec(text);
  if (!m) anchorMissing(file, what);
  const open = m.index + m[0].length - 1;
  if (text[open] !== '{') anchorMissing(file, `${what} (its opening brace)`);
  const end = closingBrace(text, open);
  if (end < 0) anchorMissing(file, `${what} (its closing brace)`);
  const body = text.slice(open + 1, end).trimEnd();
  const sep = body.trim() === '' || body.endsWith(',') ? '' : ',';
  return `${text.slice(0, open + 1)}${body}${sep}\n${entry}\n${text.slice(end)}`;
}

/** Appends `item` to a `[ 'a', 'b' ] as const` string list; returns the text and the list before. */
function addToConstList(text: string, file: string, start: RegExp, item: string, what: string, asConst = true) {
  const m = start.exec(text);
  if (!m) anchorMissing(file, what);
  const open = m.index + m[0].length - 1;
  const end = closingBrace(text, open, ']', '[');
  if (end < 0 || (asConst && !/^\]\s*as const/.test(text.slice(end))))
    anchorMissing(file, `${what} (its closing "]${asConst ? ' as const' : ''}")`);
  const inner = text.slice(open + 1, end);
  const items = [...inner.matchAll(/'([^']*)'|"([^"]*)"/g)].map((x) => x[1] ?? x[2]!);
  if (inner.replace(/'[^']*'|"[^"]*"|[\s,]|\/\/[^\n]*/g, '') !== '')
    anchorMissing(file, `${what} as a plain list of strings`);
  const list = [...items, item].map((s) => `'${s}'`).join(', ');
  return { text: `${text.slice(0, open + 1)}${list}${text.slice(end)}`, before: items };
}

/** Inserts `line` after the last line matching `pattern` (a family of similar imports). */
function insertAfterLast(text: string, file: string, pattern: RegExp, line: string, what: string): string {
  const all = [...text.matchAll(new RegExp(pattern.source, 'gm'))];
  const last = all.at(-1);
  if (!last) anchorMissing(file, what);
  const at = last.index + last[0].length;
  return `${text.slice(0, at)}\n${line}${text.slice(at)}`;
}

const LIMITS_FILE = 'src/platforms/limits.ts';
const PLATFORM_NAMES = /export const PLATFORM_NAMES\s*=\s*\[/;

/** Today's platforms, read from PLATFORM_NAMES in the text of src/platforms/limits.ts. */
export function platformNamesIn(limitsText: string): string[] {
  return addToConstList(limitsText, LIMITS_FILE, PLATFORM_NAMES, '', 'PLATFORM_NAMES').before;
}

/** One existing file's change: `apply` maps its text (after any earlier edit of the same file) to the new text. */
export interface Edit {
  file: string;
  apply(text: string): string;
}

/** The edits that register platform `n` everywhere, given today's platforms (PLATFORM_NAMES). */
export function edits(n: Names, platformNames: readonly string[]): Edit[] {
  const { name, pascal, upper, display } = n;
  const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return [
    {
      file: LIMITS_FILE,
      apply: (t) => addToConstList(t, LIMITS_FILE, PLATFORM_NAMES, name, 'PLATFORM_NAMES').text,
    },
    {
      file: 'src/platforms/registry.ts',
      apply(t) {
        const f = 'src/platforms/registry.ts';
        t = insertAfterLast(
          t,
          f,
          /^import \{ create\w+Adapter \} from '\.\/\w+\/index\.ts';$/,
          `import { create${pascal}Adapter } from './${name}/index.ts';`,
          'the adapter imports (`import { createXAdapter } from …`)',
        );
        return addObjectEntry(
          t,
          f,
          /export const ADAPTERS\b[^\n]*?=\s*\{/,
          `  ${name}: create${pascal}Adapter,`,
          'ADAPTERS',
        );
      },
    },
    {
      file: 'src/platforms/catalogue.ts',
      apply(t) {
        const f = 'src/platforms/catalogue.ts';
        t = insertAfterLast(
          t,
          f,
          /^import \{ limits as \w+ \} from '\.\/\w+\/limits\.ts';$/,
          `import { limits as ${name} } from './${name}/limits.ts';`,
          'the limits imports (`import { limits as x } from …`)',
        );
        return addObjectEntry(t, f, /export const PLATFORM_LIMITS\b[^\n]*?=\s*\{/, `  ${name},`, 'PLATFORM_LIMITS');
      },
    },
    {
      file: 'src/sandbox/server.ts',
      apply(t) {
        const f = 'src/sandbox/server.ts';
        t = insertAfterLast(
          t,
          f,
          /^import \{ \w+Simulator \} from '\.\/\w+\/index\.ts';$/,
          `import { ${name}Simulator } from './${name}/index.ts';`,
          'the simulator imports (`import { xSimulator } from …`)',
        );
        return addObjectEntry(
          t,
          f,
          /export const SIMULATORS\b[^\n]*?=\s*\{/,
          `  ${name}: ${name}Simulator,`,
          'SIMULATORS',
        );
      },
    },
    {
      file: 'src/config/platforms.ts',
      apply(t) {
        const f = 'src/config/platforms.ts';
        t = addToConstList(t, f, /export const OAUTH_APP_PLATFORMS\s*=\s*\[/, name, 'OAUTH_APP_PLATFORMS').text;
        if (!/^function appSettings\(/m.test(t)) anchorMissing(f, 'function appSettings(platform, shownName)');
        return addObjectEntry(
          t,
          f,
          /export const OAUTH_APP_SETTINGS\b[^\n]*?=\s*\{/,
          `  ${name}: appSettings(${q(name)}, ${q(display)}),`,
          'OAUTH_APP_SETTINGS',
        );
      },
    },
    {
      file: 'src/config/table.ts',
      apply(t) {
        const f = 'src/config/table.ts';
        const imp = /import \{([^}]*)\} from '\.\/platforms\.ts';/.exec(t);
        if (!imp) anchorMissing(f, "the import from './platforms.ts'");
        if (!/\bOAUTH_APP_SETTINGS\b/.test(imp[1]!))
          t = t.replace(
            imp[0],
            `import {${imp[1]!.trimEnd().replace(/,?$/, ',')} OAUTH_APP_SETTINGS } from './platforms.ts';`,
          );
        const anchor = /^([ \t]*)\.\.\.Object\.values\(CONNECT_LINK_SETTINGS\),?$/m.exec(t);
        if (!anchor) anchorMissing(f, 'the `...Object.values(CONNECT_LINK_SETTINGS),` line of SETTINGS');
        const indent = anchor[1]!;
        const lines = `${indent}OAUTH_APP_SETTINGS.${name}.clientId,\n${indent}OAUTH_APP_SETTINGS.${name}.clientSecret,\n`;
        return t.slice(0, anchor.index) + lines + t.slice(anchor.index);
      },
    },
    {
      file: 'src/container.ts',
      apply(t) {
        const f = 'src/container.ts';
        t = insertAfterLast(
          t,
          f,
          /^import \{ \w+_API_URL \} from '\.\/platforms\/\w+\/index\.ts';$/,
          `import { ${upper}_API_URL } from './platforms/${name}/index.ts';`,
          'the API host imports (`import { THREADS_API_URL } from …`)',
        );
        return addObjectEntry(t, f, /\bplatformUrls:\s*\{/, `      ${name}: ${upper}_API_URL,`, 'platformUrls: { … }');
      },
    },
    {
      file: 'src/features/connections/platform-access.ts',
      apply: (t) =>
        addObjectEntry(
          t,
          'src/features/connections/platform-access.ts',
          /export const CONSENT_HOSTS\b[^\n]*?=\s*\{/,
          `  // ${MARKER} where ${display}'s consent screen is (its OAuth authorize URL's origin).\n  ${name}: 'https://www.${name}.example',`,
          'CONSENT_HOSTS',
        ),
    },
    {
      file: 'src/features/posts/posts.platform-options.ts',
      apply: (t) =>
        addObjectEntry(
          t,
          'src/features/posts/posts.platform-options.ts',
          /export const PlatformOptions\s*=\s*Type\.Object\(\s*\{/,
          `    // ${MARKER} ${display}'s own options (the adapter reads them from part.options); alt text length and count.
    ${name}: options(
      {
        ...TextFields,
        thread: Type.Optional(ThreadParts),
        alt_texts: Type.Optional(AltTexts(1000)),
      },
      ${q(`Options for ${display}.`)},
    ),`,
          'PlatformOptions = Type.Object({ … })',
        ),
    },
    {
      // The capabilities document's test pins the platforms and their text limits.
      file: 'test/openapi.test.ts',
      apply(t) {
        const f = 'test/openapi.test.ts';
        t = addToConstList(
          t,
          f,
          /items\.map\(\(p\) => p\.id\),\s*\[/,
          name,
          'the list of platform ids GET /v1/platforms must answer',
          false,
        ).text;
        return addObjectEntry(
          t,
          f,
          /items\.map\(\(p\) => \[p\.id, p\.limits\.text\.max_length\]\)\),\s*\{/,
          `      ${name}: ${DEFAULT_MAX_LENGTH},`,
          'the text limits GET /v1/platforms must answer',
        );
      },
    },
    {
      file: 'src/mcp/tools/catalogue.tools.ts',
      apply(t) {
        const list = `(${platformNames.join(', ')})`;
        if (!t.includes(list)) anchorMissing('src/mcp/tools/catalogue.tools.ts', `the platform list "${list}"`);
        return t.replace(list, `(${[...platformNames, name].join(', ')})`);
      },
    },
  ];
}

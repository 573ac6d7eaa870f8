// The process logger (pino). JSON lines, or one readable colourised line per record at a terminal
// (HERALD_LOG_FORMAT). HTTP request logs carry the request id through Fastify's child loggers. Every line passes
// through `redactSecrets` on its way out, so no secret Herald issues reaches a log, whatever object was logged.
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  /** json, pretty, or auto: pretty when the destination (stdout by default) is a terminal. */
  format?: LogFormat;
  /**
   * Literal values never to be written (HERALD_SECRET_KEY and its predecessors), replaced wherever they appear. The
   * list is read at every line, so a value pushed later (a secret key generated into the data dir) is covered too.
   */
  secrets?: string[];
}

const CENSOR = '[redacted]';

/**
 * What a secret issued by Herald (or handed to it) looks like in a line of text:
 * - API keys `hk_live_…`/`hk_test_…`, OAuth client secrets `hcs_…`, authorization codes `hac_…`, access and
 *   refresh tokens `hat_…`/`hrt_…`, webhook secrets `whsec_…`: the prefix stays, the rest goes;
 * - query parameters that carry a secret (signed URL `signature`, `sandbox_sig`, OAuth `code`, `state`,
 *   tokens, passwords, client secrets);
 * - connect-link tokens in the `/connect/<token>` path, and invite tokens in `/invite/<token>` and
 *   `/invites/<token>` (43 characters; an invite's id, `inv_…`, is shorter and stays);
 * - `Bearer …`/`Basic …` credentials and the session, login and connect-binding cookies.
 */
const PATTERNS: Array<[RegExp, string]> = [
  [/\b(hk_(?:live|test)_|hcs_|hac_|hat_|hrt_|whsec_)[A-Za-z0-9+/=_-]+/g, `$1${CENSOR}`],
  [
    /([?&;](?:signature|sig|sandbox_sig|code|state|token|access_token|refresh_token|id_token|code_verifier|client_secret|password|secret|key|api_key|apikey)=)[^&\s"'#\\]+/gi,
    `$1${CENSOR}`,
  ],
  [/(\/connect\/)(?!choose\b|callback\b)[A-Za-z0-9_-]{16,}/g, `$1${CENSOR}`],
  [/(\/invites?\/)[A-Za-z0-9_-]{40,}/g, `$1${CENSOR}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, `$1 ${CENSOR}`],
  [/((?:__Host-)?herald_(?:session|login|connect)=)[^;\s"\\]+/g, `$1${CENSOR}`],
];

/** The text with every secret Herald knows the shape of (and each literal in `literals`) replaced by `[redacted]`. */
export function redactSecrets(text: string, literals: readonly string[] = []): string {
  let out = text;
  for (const literal of literals) if (literal.length >= 8) out = out.split(literal).join(CENSOR);
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** A URL as it may be logged: the path with connect tokens redacted, and no query string at all. */
export function loggableUrl(url: string): string {
  const path = url.split('?', 1)[0] ?? '/';
  return redactSecrets(path) + (path.length < url.length ? '?[query omitted]' : '');
}

const LEVELS: Record<number, [string, string]> = {
  10: ['TRACE', '\x1b[90m'],
  20: ['DEBUG', '\x1b[36m'],
  30: ['INFO ', '\x1b[32m'],
  40: ['WARN ', '\x1b[33m'],
  50: ['ERROR', '\x1b[31m'],
  60: ['FATAL', '\x1b[35m'],
};
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);

/** One JSON log line as a person reads it: `12:00:01.234 INFO  message key=value …`, coloured when `colour`. */
export function formatPretty(line: string, colour: boolean): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const paint = (code: string, text: string) => (colour ? `${code}${text}${RESET}` : text);
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const [label, code] = LEVELS[record.level as number] ?? ['?    ', ''];
  const fields: string[] = [];
  let stack = '';
  for (const [key, value] of Object.entries(record)) {
    if (OMITTED.has(key) || value === undefined) continue;
    if (key === 'err' && value && typeof value === 'object') {
      const err = value as { type?: string; message?: string; stack?: string };
      fields.push(`err=${JSON.stringify(`${err.type ?? 'Error'}: ${err.message ?? ''}`)}`);
      if (err.stack) stack = `\n${paint(DIM, err.stack.split('\n').slice(1).join('\n'))}`;
      continue;
    }
    const shown = typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
    fields.push(`${paint(DIM, `${key}=`)}${shown}`);
  }
  const message = typeof record.msg === 'string' ? record.msg : '';
  return `${paint(DIM, time)} ${paint(code, label)} ${message}${fields.length ? ` ${fields.join(' ')}` : ''}${stack}\n`;
}

function isTerminal(destination: DestinationStream | undefined): boolean {
  const target = (destination ?? process.stdout) as { isTTY?: boolean };
  return target.isTTY === true;
}

export function createLogger(level: string, destination?: DestinationStream, options: LoggerOptions = {}): Logger {
  const format = options.format ?? 'json';
  const pretty = format === 'pretty' || (format === 'auto' && isTerminal(destination));
  const colour = pretty && isTerminal(destination);
  const literals = options.secrets ?? [];
  const target: DestinationStream =
    destination ?? (pretty ? { write: (s: string) => void process.stdout.write(s) } : pino.destination(1));
  const stream: DestinationStream = pretty
    ? { write: (line: string) => target.write(formatPretty(line, colour)) }
    : target;
  return pino(
    {
      level,
      base: { pid: process.pid },
      // Tokens and secrets must never reach a log line, whatever object is logged: known fields are censored
      // here, and every finished line is scrubbed of anything shaped like a secret (redactSecrets).
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          'headers.cookie',
          'headers["set-cookie"]',
          '*.access_token',
          '*.refresh_token',
          '*.password',
          '*.token',
          '*.secret',
          '*.client_secret',
          '*.authorization',
          '*.cookie',
        ],
        censor: CENSOR,
      },
      hooks: { streamWrite: (line: string) => redactSecrets(line, literals) },
    },
    stream,
  );
}

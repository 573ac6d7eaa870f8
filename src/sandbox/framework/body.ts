// Request bodies as the platforms accept them: JSON, form-encoded, multipart/form-data and raw bytes. The
// simulators take every body as bytes and decode it here, so they behave the same mounted in Herald (whose
// own parsers are JSON-only) and standalone.

export interface UploadedFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface ParsedBody {
  contentType: string;
  raw: Buffer;
  /** JSON object, or the fields of a form / multipart body. */
  fields: Record<string, unknown>;
  files: Record<string, UploadedFile>;
  /** False when the body claimed a type and could not be decoded as it. */
  valid: boolean;
}

function multipart(
  raw: Buffer,
  boundary: string,
): { fields: Record<string, unknown>; files: Record<string, UploadedFile> } | undefined {
  const fields: Record<string, unknown> = {};
  const files: Record<string, UploadedFile> = {};
  const delimiter = Buffer.from(`--${boundary}`);
  let pos = raw.indexOf(delimiter);
  if (pos < 0) return undefined;
  while (true) {
    pos += delimiter.length;
    if (raw.subarray(pos, pos + 2).toString() === '--') break;
    pos += 2; // CRLF after the delimiter
    const headerEnd = raw.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) return undefined;
    const headers = raw.subarray(pos, headerEnd).toString('utf8');
    const next = raw.indexOf(delimiter, headerEnd + 4);
    if (next < 0) return undefined;
    const data = raw.subarray(headerEnd + 4, next - 2); // drop the CRLF before the next delimiter
    const name = /name="([^"]*)"/i.exec(headers)?.[1];
    const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
    const declared = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim();
    const type = declared ?? 'application/octet-stream';
    if (name !== undefined) {
      // A part is a file when it has a filename or a non-text type (twitter-api-v2 sends bytes without a filename).
      if (filename !== undefined || (declared !== undefined && !declared.startsWith('text/')))
        files[name] = { filename: filename ?? name, contentType: type, data: Buffer.from(data) };
      else {
        const value = data.toString('utf8');
        // Repeated fields (`media_ids[]`) become arrays.
        if (name in fields) fields[name] = [...([] as unknown[]).concat(fields[name]), value];
        else fields[name] = name.endsWith('[]') ? [value] : value;
      }
    }
    pos = next;
  }
  return { fields, files };
}

function form(text: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (key in fields) fields[key] = [...([] as unknown[]).concat(fields[key]), value];
    else fields[key] = key.endsWith('[]') ? [value] : value;
  }
  return fields;
}

export function parseBody(contentTypeHeader: string | undefined, body: unknown): ParsedBody {
  const raw = Buffer.isBuffer(body)
    ? body
    : body === undefined || body === null
      ? Buffer.alloc(0)
      : Buffer.from(String(body));
  const contentType = (contentTypeHeader ?? '').split(';')[0]!.trim().toLowerCase();
  const empty = { contentType, raw, fields: {}, files: {}, valid: true };
  if (raw.length === 0) return empty;
  if (contentType === 'application/json') {
    try {
      const parsed = JSON.parse(raw.toString('utf8')) as unknown;
      return {
        ...empty,
        fields:
          parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {},
        valid: Boolean(parsed && typeof parsed === 'object'),
      };
    } catch {
      return { ...empty, valid: false };
    }
  }
  if (contentType === 'application/x-www-form-urlencoded') return { ...empty, fields: form(raw.toString('utf8')) };
  if (contentType === 'multipart/form-data') {
    const boundary = /boundary="?([^";]+)"?/i.exec(contentTypeHeader ?? '')?.[1];
    const parsed = boundary ? multipart(raw, boundary) : undefined;
    return parsed ? { ...empty, ...parsed } : { ...empty, valid: false };
  }
  return empty;
}

/** Form fields that carry arrays as `name[]` (Mastodon) are read under either spelling. */
export function arrayField(fields: Record<string, unknown>, name: string): unknown[] | undefined {
  const value = fields[`${name}[]`] ?? fields[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

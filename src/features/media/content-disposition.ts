// The Content-Disposition of a media download (both drivers): shown inline, under its original name, safe for
// any characters in that name (RFC 6266, with the RFC 8187 `filename*` form for non-ASCII).
export function inlineDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `inline; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

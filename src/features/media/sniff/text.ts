// Whether bytes are text (for text uploads such as a bulk import's CSV, which have no magic bytes): the first
// bytes must decode as UTF-8 and hold no control character other than tab, carriage return, line feed and form
// feed. Binary files (images, archives, executables) fail on both counts within their first bytes.
export const TEXT_HEAD_BYTES = 64 * 1024;

/** Why `head` is not text, or null when it is. `whole`: head is the whole file (else its end may cut a character). */
export function textProblem(head: Buffer, whole: boolean): string | null {
  if (head.length === 0) return 'the file is empty.';
  // A UTF-8 character is at most 4 bytes: a cut at the end of a partial head is not an error.
  let bytes = head;
  if (!whole) {
    let end = head.length;
    for (let back = 1; back <= 3 && end - back >= 0; back++)
      if ((head[end - back]! & 0xc0) === 0xc0) {
        end -= back;
        break;
      }
    bytes = head.subarray(0, end);
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'it is not UTF-8 text.';
  }
  for (const byte of bytes) {
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c)
      return `it holds the control byte 0x${byte.toString(16).padStart(2, '0')}, which text does not.`;
    if (byte === 0x7f) return 'it holds the control byte 0x7f, which text does not.';
  }
  return null;
}

// What counts as text for a text upload (a bulk import's CSV): UTF-8 without control characters, a character cut
// at the end of a partial read allowed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { textProblem } from './text.ts';

test('UTF-8 text with tabs and CRLF line ends is text', () => {
  assert.equal(textProblem(Buffer.from('\ufeffcontent,platforms\r\n"Café 🚀",x\t\r\n'), true), null);
});

test('a multi-byte character cut by the end of a partial head is not an error; in a whole file it is', () => {
  const cut = Buffer.from('ok 🚀', 'utf8').subarray(0, 5);
  assert.equal(textProblem(cut, false), null);
  assert.match(textProblem(cut, true)!, /not UTF-8/);
});

test('binary bytes, control bytes and an empty file are not text', () => {
  assert.match(textProblem(Buffer.from('89504e470d0a1a0a', 'hex'), true)!, /not UTF-8/);
  assert.match(textProblem(Buffer.from('a,b\x00c'), true)!, /0x00/);
  assert.match(textProblem(Buffer.from('a\x1bb'), true)!, /0x1b/);
  assert.match(textProblem(Buffer.alloc(0), true)!, /empty/);
});

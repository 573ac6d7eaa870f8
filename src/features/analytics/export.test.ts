// CSV fields as the export writes them (RFC 4180 quoting) with the guard against cells a spreadsheet would run as a
// formula, and the summary's deltas and per-target engagement math.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvField, csvLine } from './export.ts';
import { engagementsOf, rate, rateBaseOf } from './metrics.ts';
import { delta } from './summary.ts';

test('fields holding a comma, a quote or a line break are quoted, with quotes doubled', () => {
  assert.equal(csvField('plain text'), 'plain text');
  assert.equal(csvField('a, b'), '"a, b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('two\nlines'), '"two\nlines"');
  assert.equal(csvLine(['a', 1, null, 'b']), 'a,1,,b\r\n');
});

test('text starting with = + - @ tab or carriage return is prefixed so spreadsheets show it, not run it', () => {
  for (const start of ['=', '+', '-', '@', '\t', '\r'])
    assert.ok(csvField(`${start}SUM(A1)`).replace(/^"/, '').startsWith("'"));
  assert.equal(csvField('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
  assert.equal(csvField('@mention'), "'@mention");
  // Numbers are numbers: a negative value is not text and keeps its sign.
  assert.equal(csvField(-3), '-3');
  assert.equal(csvField(0.0412), '0.0412');
});

test('engagements sum only what the platform gives; with none of them they are unknown, not 0', () => {
  assert.equal(engagementsOf({ likes: 10, comments: 2, shares: 3, impressions: 1000 }), 15);
  assert.equal(engagementsOf({ impressions: 1000, clicks: 7 }), null);
  assert.equal(engagementsOf({ likes: 0 }), 0);
});

test('the rate base is reach, else impressions; a base of 0 is no base', () => {
  assert.equal(rateBaseOf({ reach: 800, impressions: 1000 }), 800);
  assert.equal(rateBaseOf({ impressions: 1000 }), 1000);
  assert.equal(rateBaseOf({ reach: 0, impressions: 1000 }), null);
  assert.equal(rateBaseOf({ likes: 3 }), null);
  assert.equal(rate(15, 800), 0.0188);
  assert.equal(rate(15, null), null);
});

test('deltas: unknown when either side is, no percentage of a zero base', () => {
  assert.deepEqual(delta(100, 20), { change: 80, percent: 400 });
  assert.deepEqual(delta(5, 10), { change: -5, percent: -50 });
  assert.deepEqual(delta(5, 0), { change: 5, percent: null });
  assert.deepEqual(delta(null, 10), { change: null, percent: null });
  assert.deepEqual(delta(0.0303, 0.05), { change: -0.0197, percent: -39.4 });
});

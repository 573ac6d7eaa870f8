// The deterministic engine's text tools: extractive summaries, splitting to X's and Bluesky's own counting rules
// with thread numbering, hashtags and templates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLATFORM_LIMITS } from '../../../platforms/catalogue.ts';
import { fillTemplate, pickHashtags, rankSentences, sentences, splitToLimit, summarize, toHashtag } from './text.ts';

const ARTICLE = [
  'Solar panels on the school roof now cover most of its electricity.',
  'The weather was pleasant on the day of the visit.',
  'The solar installation has forty panels and a battery that stores midday solar power for the evening.',
  'Parents were invited to a picnic afterwards.',
  'Over a year the panels produce more power than the school uses, and the battery covers the evening.',
  'Someone brought a cake.',
].join(' ');

test('sentences are split at sentence boundaries, blank lines included, in any script', () => {
  assert.deepEqual(sentences('One. Two?  Three!\n\nHeading\n\nLast one'), [
    'One.',
    'Two?',
    'Three!',
    'Heading',
    'Last one',
  ]);
  assert.deepEqual(sentences('これは文です。これも文です。'), ['これは文です。', 'これも文です。']);
});

test('an extractive summary keeps the sentences heaviest in the topic terms, in document order', () => {
  const summary = summarize(ARTICLE, 3);
  assert.deepEqual(summary, [
    'Solar panels on the school roof now cover most of its electricity.',
    'The solar installation has forty panels and a battery that stores midday solar power for the evening.',
    'Over a year the panels produce more power than the school uses, and the battery covers the evening.',
  ]);
  // The filler ranks last.
  const ranked = rankSentences(ARTICLE);
  assert.ok(['Someone brought a cake.', 'Parents were invited to a picnic afterwards.'].includes(ranked.at(-1)!.text));
  // A character budget skips a sentence that would overflow it for one that fits.
  const short = summarize(ARTICLE, 3, 120);
  assert.ok(short.join(' ').length <= 120, short.join(' '));
  assert.ok(short.length >= 1);
});

function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

function stripNumbers(parts: string[]): string[] {
  return parts.flatMap((p, i) => {
    const suffix = ` ${i + 1}/${parts.length}`;
    assert.ok(p.endsWith(suffix), `part ${i + 1} ends with "${suffix}": ${p}`);
    return words(p.slice(0, -suffix.length));
  });
}

const LONG = Array.from(
  { length: 30 },
  (_, i) => `Sentence number ${i + 1} explains one more detail of the launch, with enough words to take some room.`,
).join(' ');

test('X: every part of a thread is within 280 weighted characters, numbered i/n, and no word is lost', () => {
  const x = PLATFORM_LIMITS.x.text;
  const parts = splitToLimit(x, LONG);
  assert.ok(parts.length > 9, `${parts.length} parts (two-digit numbering exercised)`);
  for (const p of parts) assert.deepEqual(x.check(p), [], p);
  assert.deepEqual(stripNumbers(parts), words(LONG));
  // Sentences are not cut: each part (number aside) ends a sentence.
  for (const p of parts) assert.match(p, /\. \d+\/\d+$/);
});

test("X's weighted count is the one used: URLs count 23, CJK counts double", () => {
  const x = PLATFORM_LIMITS.x.text;
  const url = `https://example.com/${'a'.repeat(200)}`;
  const withUrls = `Read this ${url} and this ${url} today.`;
  assert.ok(withUrls.length > 280);
  assert.deepEqual(splitToLimit(x, withUrls), [withUrls]);
  const cjk = '日本語の文です。'.repeat(30); // 8 characters weighing 2 each, per sentence: 480 weighted
  const parts = splitToLimit(x, cjk);
  assert.ok(parts.length >= 2);
  for (const p of parts) assert.ok(x.measure(p) <= 280, `${x.measure(p)}: ${p}`);
});

test('Bluesky: parts are within 300 graphemes (emoji count once) and numbered', () => {
  const bsky = PLATFORM_LIMITS.bluesky.text;
  const text = Array.from(
    { length: 12 },
    (_, i) => `Update ${i + 1} 👩‍👩‍👧‍👦 from the team, with news worth a few words here.`,
  ).join(' ');
  const parts = splitToLimit(bsky, text);
  assert.ok(parts.length >= 2);
  for (const p of parts) {
    assert.deepEqual(bsky.check(p), [], p);
    assert.ok(bsky.measure(p) <= 300);
  }
  assert.deepEqual(stripNumbers(parts), words(text));
  // A family emoji is 11 code points but one grapheme: parts hold more than 300 UTF-16 units where it is used.
  assert.ok(parts.some((p) => p.length > bsky.measure(p)));
});

test('a sentence longer than a part is cut between words, a word longer than a part between graphemes', () => {
  const bsky = PLATFORM_LIMITS.bluesky.text;
  const sentence = `${'word '.repeat(100).trim()}.`;
  const parts = splitToLimit(bsky, sentence);
  for (const p of parts) assert.deepEqual(bsky.check(p), []);
  assert.deepEqual(stripNumbers(parts), words(sentence));
  const giant = 'x'.repeat(700);
  const cut = splitToLimit(bsky, giant);
  for (const p of cut) assert.deepEqual(bsky.check(p), []);
  assert.equal(cut.map((p, i) => p.slice(0, -` ${i + 1}/${cut.length}`.length)).join(''), giant);
});

test('a text that fits is one unnumbered part; numbering can be turned off', () => {
  const x = PLATFORM_LIMITS.x.text;
  assert.deepEqual(splitToLimit(x, 'Short. Text.'), ['Short. Text.']);
  const unnumbered = splitToLimit(x, LONG, { numbering: false });
  assert.ok(unnumbered.length > 1);
  assert.ok(unnumbered.every((p) => !/\d+\/\d+$/.test(p)));
  assert.deepEqual(unnumbered.flatMap(words), words(LONG));
});

test("hashtags: the brand's defaults first, then keywords by weight, no repeats, at most max", () => {
  const tags = pickHashtags(ARTICLE, ['#GreenSchools', 'solar'], 4);
  assert.equal(tags.length, 4);
  assert.deepEqual(tags.slice(0, 2), ['#GreenSchools', '#solar']);
  assert.ok(tags.includes('#panels'), tags.join(' '));
  assert.equal(new Set(tags.map((t) => t.toLowerCase())).size, 4);
  assert.deepEqual(pickHashtags(ARTICLE, ['#A'], 0), []);
  // Tags already in the text are not repeated.
  assert.ok(!pickHashtags('We love #solar energy and solar panels.', [], 3).includes('#solar'));
  assert.equal(toHashtag('new-york city!'), '#newyorkcity');
  assert.equal(toHashtag('2026'), undefined);
});

test('templates: placeholders filled, missing ones left out without stray spaces', () => {
  const filled = fillTemplate('Hi {{author}}, thanks! {{ brand.cta }} {{brand.signature}}', {
    'brand.cta': 'Visit us.',
    'brand.signature': '— Acme',
  });
  assert.deepEqual(filled, { text: 'Hi, thanks! Visit us. — Acme', missing: ['author'] });
});

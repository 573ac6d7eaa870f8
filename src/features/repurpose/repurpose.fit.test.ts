// The extractive engine and the fitting, pure: what an output keeps, how it is cut, and when it is reported as not
// within the limit rather than cut mid-sentence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import { draftOutput, fitOutput, withUtm } from './repurpose.fit.ts';

const none = { cta: null, link: null, hashtags: [], brandSuffix: '' };
const SENTENCES = Array.from(
  { length: 30 },
  (_, i) => `Finding ${i + 1} shows that the release process for mobile teams gets faster with review queues.`,
);

test('UTM parameters are set on the link, replacing ones of the same name and keeping the rest', () => {
  assert.equal(
    withUtm('https://example.com/a?ref=home&utm_source=old#top', { source: 'x', medium: 'social', campaign: 'launch' }),
    'https://example.com/a?ref=home&utm_source=x&utm_medium=social&utm_campaign=launch#top',
  );
});

test('UTM parameters leave the other parameters byte for byte', () => {
  assert.equal(
    withUtm('https://example.com/a?q=a%20b+c&flag&x=1;y=2', { source: 'x', medium: 'social', campaign: 'launch' }),
    'https://example.com/a?q=a%20b+c&flag&x=1;y=2&utm_source=x&utm_medium=social&utm_campaign=launch',
  );
});

test('the link counts as the platform counts it: 23 on X whatever its length, every grapheme on Bluesky', () => {
  const link = `https://example.com/${'a'.repeat(220)}?utm_source=x`;
  const draft = { parts: SENTENCES.slice(0, 1), hashtags: [] };
  const x = fitOutput('x', 'post', draft, { ...none, link });
  assert.equal(x.within_limit, true, JSON.stringify(x.problems));
  assert.ok(x.parts[0]!.includes(link) && x.parts[0]!.length > PLATFORM_LIMITS.x.text.maxLength);
  assert.ok(x.char_count <= PLATFORM_LIMITS.x.text.maxLength);
  // On Bluesky the sentence and the link do not fit together: reported, not posted without the link.
  const bluesky = fitOutput('bluesky', 'post', draft, { ...none, link });
  assert.equal(bluesky.within_limit, false);
  assert.ok(bluesky.parts[0]!.includes(link));
  assert.equal(bluesky.problems[0]!.rule, 'text_too_long');
});

test('a thread keeps its link whole: a query string is not a sentence boundary', () => {
  const link = 'https://example.com/blog/launch?ref=home&utm_source=x&utm_medium=social&utm_campaign=launch';
  for (const platform of ['x', 'bluesky'] as const) {
    const fitted = fitOutput(platform, 'thread', { parts: SENTENCES.slice(0, 6), hashtags: [] }, { ...none, link });
    assert.equal(fitted.within_limit, true, JSON.stringify(fitted.problems));
    assert.ok(fitted.parts.length > 1);
    assert.ok(
      fitted.parts.some((p) => p.includes(`${link} `) || p.endsWith(link)),
      fitted.parts.join('\n'),
    );
  }
});

test('a thread never cuts a link longer than a part: reported as link_too_long', () => {
  const link = `https://example.com/${'a'.repeat(400)}`;
  const fitted = fitOutput('bluesky', 'thread', { parts: SENTENCES.slice(0, 6), hashtags: [] }, { ...none, link });
  assert.equal(fitted.within_limit, false);
  assert.ok(fitted.problems.some((p) => p.rule === 'link_too_long'));
});

test('the draft leads with the title, then the heaviest sentences in the source order; variants differ', () => {
  const text =
    'Cats sleep. Release notes matter for release teams. Dogs bark. Release review makes release notes better.';
  const first = draftOutput({ platform: 'linkedin', format: 'caption', title: 'Release notes', text, variant: 0 });
  assert.equal(first.parts[0], 'Release notes');
  const kept = first.parts.slice(1);
  assert.deepEqual(
    kept,
    [...kept].sort((a, b) => text.indexOf(a) - text.indexOf(b)),
  );
  const second = draftOutput({ platform: 'linkedin', format: 'caption', title: null, text, variant: 1 });
  assert.notDeepEqual(second.parts, first.parts.slice(1));
});

test('a single post keeps the whole sentences that fit with the link and the hashtags, never part of one', () => {
  const fitted = fitOutput(
    'x',
    'post',
    { parts: SENTENCES.slice(0, 3), hashtags: [] },
    {
      ...none,
      link: 'https://example.com/post',
      hashtags: ['#release', '#mobile', '#teams'],
    },
  );
  assert.equal(fitted.within_limit, true);
  assert.deepEqual(PLATFORM_LIMITS.x.text.check(fitted.parts[0]!), []);
  assert.ok(fitted.parts[0]!.includes('https://example.com/post'));
  const body = fitted.parts[0]!.split('\n\n')[0]!;
  const kept = body.split(/(?<=\.) /);
  assert.ok(kept.length >= 1 && kept.every((k) => SENTENCES.includes(k)), `whole sentences only: ${body}`);
  assert.deepEqual(fitted.hashtags, ['#release', '#mobile', '#teams']);
  assert.ok(kept.length < 3, 'the third sentence did not fit and was left out whole');
});

test('a thread too long for the platform is condensed to its part count, every part numbered and within the limit', () => {
  const fitted = fitOutput('bluesky', 'thread', { parts: [SENTENCES.join(' ').repeat(4)], hashtags: [] }, none);
  assert.equal(fitted.within_limit, true, JSON.stringify(fitted.problems));
  assert.ok(fitted.parts.length <= PLATFORM_LIMITS.bluesky.maxThreadParts);
  fitted.parts.forEach((part, i) => {
    assert.deepEqual(PLATFORM_LIMITS.bluesky.text.check(part), []);
    assert.ok(part.endsWith(` ${i + 1}/${fitted.parts.length}`));
  });
});

test('one sentence longer than the limit is reported, not cut: within_limit false with the rule', () => {
  const long = `${'word '.repeat(80).trim()}.`;
  const fitted = fitOutput('x', 'post', { parts: [long], hashtags: [] }, none);
  assert.equal(fitted.within_limit, false);
  assert.equal(fitted.problems[0]!.rule, 'text_too_long');
  assert.ok(fitted.char_count > PLATFORM_LIMITS.x.text.maxLength);
});

test('the brand suffix is counted on the first part', () => {
  const suffix = `\n\n${'signed '.repeat(10).trim()}`;
  const fitted = fitOutput(
    'x',
    'post',
    { parts: SENTENCES.slice(0, 4), hashtags: [] },
    { ...none, brandSuffix: suffix },
  );
  assert.equal(fitted.within_limit, true);
  assert.deepEqual(PLATFORM_LIMITS.x.text.check(fitted.parts[0]! + suffix), []);
});

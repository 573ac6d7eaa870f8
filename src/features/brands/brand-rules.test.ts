// A brand's rules on a post's texts, without any model (docs/api.md "Brand rules on posts").
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlatformName } from '../../platforms/limits.ts';
import { checkBrandRules, containsTerm, type PlatformText } from './brand-rules.ts';
import type { BrandForPosts } from './brands.repo.ts';

function brand(fields: Partial<BrandForPosts> = {}): BrandForPosts {
  return {
    id: 'brand_1',
    version: 4,
    banned_terms: [],
    required_terms: [],
    default_hashtags: [],
    signature: null,
    cta_default: null,
    rules: {},
    ...fields,
  };
}

function texts(content: string, platforms: PlatformName[], thread: string[] = []): PlatformText[] {
  return platforms.map((platform) => ({
    platform,
    first: { text: content, path: '/content' },
    thread: thread.map((text, i) => ({ text, path: `/platform_options/${platform}/thread/${i}` })),
  }));
}

describe('terms', () => {
  test('match whole words or phrases, ignoring case', () => {
    assert.ok(containsTerm('So CHEAP today', 'cheap'));
    assert.ok(!containsTerm('the cheapest', 'cheap'));
    assert.ok(containsTerm('Free shipping!', 'free shipping'));
    assert.ok(containsTerm('Sponsored #ad.', '#ad'));
    assert.ok(!containsTerm('#adore', '#ad'));
    assert.ok(containsTerm('Ça coûte (trop)', 'coûte'));
    assert.ok(!containsTerm('a+b', 'a+c'), 'terms are literal, not patterns');
  });

  test('a banned term is a warning per platform and part; an error when the brand says so', () => {
    const b = brand({ banned_terms: ['cheap'] });
    const check = checkBrandRules(b, texts('Cheap coffee', ['x', 'bluesky'], ['still cheap']));
    assert.equal(check.errors.length, 0);
    assert.deepEqual(
      check.warnings.map((w) => [w.platform, w.rule, w.path]),
      [
        ['x', 'banned_term', '/content'],
        ['x', 'banned_term', '/platform_options/x/thread/0'],
        ['bluesky', 'banned_term', '/content'],
        ['bluesky', 'banned_term', '/platform_options/bluesky/thread/0'],
      ],
    );
    assert.match(check.warnings[0]!.message, /"cheap".*x text/);
    const strict = checkBrandRules({ ...b, rules: { banned_terms: { severity: 'error' } } }, texts('cheap', ['x']));
    assert.equal(strict.errors.length, 1);
    assert.equal(strict.warnings.length, 0);
  });

  test('a missing required term warns, refuses or is appended, on the platforms the rule names', () => {
    const b = brand({ required_terms: ['#ad', 'Terms apply'] });
    const warned = checkBrandRules(b, texts('Buy now #ad', ['x']));
    assert.deepEqual(
      warned.warnings.map((w) => [w.rule, w.message.includes('Terms apply')]),
      [['required_term_missing', true]],
    );
    const refused = checkBrandRules({ ...b, rules: { required_terms: { when_missing: 'error' } } }, texts('x', ['x']));
    assert.equal(refused.errors.length, 2);
    const appended = checkBrandRules(
      { ...b, rules: { required_terms: { when_missing: 'append', apply: 'platforms', platforms: ['linkedin'] } } },
      texts('Buy now', ['x', 'linkedin']),
    );
    assert.deepEqual(appended.warnings, []);
    assert.equal(appended.additions.x, undefined, 'the rule does not apply to x');
    assert.deepEqual(appended.additions.linkedin?.additions, [{ rule: 'required_terms', text: '#ad Terms apply' }]);
    // A term present in a later part of the thread counts.
    assert.deepEqual(checkBrandRules(b, texts('Buy', ['x'], ['#ad', 'terms APPLY'])).warnings, []);
  });
});

describe('additions', () => {
  const full = brand({
    cta_default: 'Order today',
    signature: '— Acme',
    default_hashtags: ['#acme', '#coffee'],
    required_terms: ['#ad'],
    rules: {
      cta: { apply: 'always' },
      signature: { apply: 'platforms', platforms: ['linkedin'] },
      default_hashtags: { apply: 'always' },
      required_terms: { when_missing: 'append' },
    },
  });

  test('are appended in a fixed order (CTA, required terms, signature, hashtags), only where asked', () => {
    const check = checkBrandRules(full, texts('Fresh beans', ['linkedin', 'x']));
    assert.equal(check.additions.linkedin?.suffix, '\n\nOrder today\n#ad\n— Acme\n#acme #coffee');
    assert.equal(check.additions.linkedin?.brand_version, 4);
    assert.deepEqual(
      check.additions.x?.additions.map((a) => a.rule),
      ['cta', 'required_terms', 'default_hashtags'],
    );
  });

  test('skip what the text already carries, and need no blank line before an empty text', () => {
    const check = checkBrandRules(full, texts('Fresh beans #ACME. Order today', ['x']));
    assert.deepEqual(check.additions.x?.additions, [
      { rule: 'required_terms', text: '#ad' },
      { rule: 'default_hashtags', text: '#coffee' },
    ]);
    assert.equal(checkBrandRules(full, texts('', ['x'])).additions.x?.suffix.startsWith('Order today'), true);
    const none = checkBrandRules(brand({ signature: '— Acme' }), texts('Hello', ['x']));
    assert.deepEqual(none.additions, {}, 'nothing is added unless the brand asks');
  });
});

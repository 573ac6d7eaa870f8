// The brand context's bound and what is cut to keep it (docs/api.md "Brand context").
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY_BRAND_FIELDS, type BrandRow } from './brands.repo.ts';
import { BRAND_LIMITS } from './brands.schemas.ts';
import { BRAND_CONTEXT_CUT_ORDER, BRAND_CONTEXT_MAX_CHARS, compileBrandContext } from './context.ts';

function brand(fields: Partial<BrandRow> = {}): BrandRow {
  return {
    id: 'brand_1',
    workspace_id: '00000000-0000-0000-0000-000000000001',
    name: 'Acme',
    slug: 'acme',
    is_default: false,
    ...EMPTY_BRAND_FIELDS,
    version: 7,
    created_at: new Date(0),
    updated_at: new Date(0),
    ...fields,
  };
}

const fill = (n: number, length: number, c = 'x') =>
  Array.from({ length: n }, (_, i) => `${i}${c.repeat(length - String(i).length)}`);

/** Every field at its limit. */
function maximal(): BrandRow {
  const L = BRAND_LIMITS;
  return brand({
    name: 'N'.repeat(L.name),
    slug: 's'.repeat(L.slug),
    website: `https://${'w'.repeat(L.website - 8)}`,
    industry: 'i'.repeat(L.industry),
    timezone: 'America/Argentina/ComodRivadavia',
    language: 'pt-BR',
    offer: 'o'.repeat(L.offer),
    audience: {
      summary: 'a'.repeat(L.audience.summary),
      segments: fill(L.audience.segments.items, L.audience.segments.length, 'g'),
    },
    goals: fill(L.goals.items, L.goals.length, 'G'),
    voice: {
      descriptors: fill(L.voice.descriptors.items, L.voice.descriptors.length, 'd'),
      formality: 5,
      emoji: 'rich',
      hashtags: 'many',
      do: fill(L.voice.do.items, L.voice.do.length, 'D'),
      dont: fill(L.voice.dont.items, L.voice.dont.length, 'N'),
      examples: fill(L.voice.examples.items, L.voice.examples.length, 'e'),
    },
    guidelines_md: 'guideline line\n'.repeat(L.guidelines_md / 15),
    banned_terms: fill(L.banned_terms.items, L.banned_terms.length, 'b'),
    required_terms: fill(L.required_terms.items, L.required_terms.length, 'r'),
    default_hashtags: fill(L.default_hashtags.items, L.default_hashtags.length, 'h').map((h) => `#${h.slice(1)}`),
    signature: 'S'.repeat(L.signature),
    cta_default: 'C'.repeat(L.cta_default),
    memory: fill(L.memory.items, L.memory.text, 'm').map((text, i) => ({
      id: `mem_${i}`,
      text,
      tags: fill(L.memory.tags, L.memory.tag, 't'),
    })),
    documents: fill(L.documents.items, L.documents.title, 'T').map((title, i) => ({ media_id: `med_${i}`, title })),
  });
}

describe('compileBrandContext', () => {
  test('a small brand compiles whole, with its fields and version', () => {
    const ctx = compileBrandContext(
      brand({
        website: 'https://acme.example',
        voice: { descriptors: ['warm', 'direct'], formality: 2, dont: ['shout'], examples: ['Hello!'] },
        banned_terms: ['cheap'],
        required_terms: ['#ad'],
        default_hashtags: ['#acme'],
        signature: '— Acme',
        memory: [{ id: 'mem_1', text: 'Founded in 1990', tags: ['history'] }],
        documents: [{ media_id: 'med_1', title: 'Price list' }],
      }),
    );
    assert.equal(ctx.brand_id, 'brand_1');
    assert.equal(ctx.version, 7);
    assert.deepEqual(ctx.truncated, []);
    for (const line of [
      'Brand: Acme (acme)',
      'Website: https://acme.example',
      'Voice: warm, direct',
      'Formality: 2 of 5 (casual)',
      'Never use these terms: "cheap"',
      'Always include these terms: "#ad"',
      'Default hashtags: #acme',
      'Signature: — Acme',
      "- Don't: shout",
      '- [history] Founded in 1990',
      '- Price list (media med_1)',
      'Examples of posts in this voice:\nHello!',
    ])
      assert.ok(ctx.text.includes(line), `${line} in:\n${ctx.text}`);
    assert.equal(ctx.fields.rules.banned_terms.severity, 'warning');
    assert.deepEqual(ctx.fields.voice.do, []);
  });

  test('a brand with every field at its limit fits the bound, keeps its core and cuts in the documented order', () => {
    const b = maximal();
    const ctx = compileBrandContext(b);
    assert.ok(ctx.text.length <= BRAND_CONTEXT_MAX_CHARS, `${ctx.text.length}`);
    // The core (the first block) leaves room for the rest: the field limits keep it far under the bound.
    assert.ok(ctx.text.indexOf('\n\n') < 8000, 'docs/api.md "Brand context": the core stays under 8,000 characters');
    // The core is never cut: identity, voice attributes and every rule term.
    for (const term of [
      ...b.banned_terms,
      ...b.required_terms,
      ...b.default_hashtags,
      b.signature!,
      b.cta_default!,
      b.offer!,
    ])
      assert.ok(ctx.text.includes(term), term.slice(0, 20));
    // Cut in order, none skipped before the last one cut.
    assert.deepEqual(ctx.truncated, BRAND_CONTEXT_CUT_ORDER.slice(0, ctx.truncated.length));
    assert.ok(ctx.truncated.includes('guidelines'));
    assert.ok(!ctx.text.includes('Examples of posts'), 'examples go first');
    // The structured fields stay whole.
    assert.equal(ctx.fields.voice.examples.length, BRAND_LIMITS.voice.examples.items);
    assert.equal(ctx.fields.memory.length, BRAND_LIMITS.memory.items);
  });

  test('only what is needed is cut: examples first, from their end', () => {
    const examples = fill(5, 1000, 'e');
    const ctx = compileBrandContext(
      brand({ voice: { examples }, memory: [{ id: 'mem_1', text: 'keep me', tags: [] }] }),
      3000,
    );
    assert.deepEqual(ctx.truncated, ['examples']);
    assert.ok(ctx.text.length <= 3000);
    assert.ok(ctx.text.includes(examples[0]!), 'the first examples are kept');
    assert.ok(!ctx.text.includes(examples[4]!));
    assert.ok(ctx.text.includes('keep me'), 'memory is not cut while dropping examples is enough');
  });

  test('then memory, then documents, then guidelines, shortened at a line with an ellipsis', () => {
    const memory = fill(10, 400, 'm').map((text, i) => ({ id: `mem_${i}`, text, tags: [] }));
    const documents = fill(5, 190, 'T').map((title, i) => ({ media_id: `med_${i}`, title }));
    const guidelines = 'A line of guidance.\n'.repeat(300);
    const ctx = compileBrandContext(
      brand({ voice: { examples: ['ex'] }, memory, documents, guidelines_md: guidelines, goals: ['grow'] }),
      3000,
    );
    assert.deepEqual(ctx.truncated, ['examples', 'memory', 'documents', 'guidelines']);
    assert.ok(ctx.text.length <= 3000);
    assert.match(ctx.text, /Guidelines:\nA line of guidance\.\n[\s\S]*guidance\.…/);
    assert.ok(ctx.text.includes('- grow'), 'goals are cut only after the guidelines');
  });

  test('guidelines that would shrink to a stub are dropped, and later sections follow', () => {
    const ctx = compileBrandContext(
      brand({ guidelines_md: 'g'.repeat(2000), goals: fill(10, 200, 'G'), audience: { segments: ['one'] } }),
      600,
    );
    assert.ok(ctx.text.length <= 600);
    assert.ok(!ctx.text.includes('Guidelines:'));
    assert.deepEqual(ctx.truncated.slice(0, 2), ['guidelines', 'goals']);
  });
});

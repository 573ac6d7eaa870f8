// The task registry answered by the deterministic engine alone (HERALD_AI_PROVIDER=deterministic): every task's
// answer meets its own schema and checks, records its provenance, and never touches the usage table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { AppError } from '../../app/errors.ts';
import { bodyValidator } from '../../app/validation.ts';
import { loadConfig } from '../../config.ts';
import type { Queryable } from '../../db/pool.ts';
import { createLogger } from '../../lib/logger.ts';
import { createMetrics } from '../../lib/metrics.ts';
import { PLATFORM_LIMITS } from '../../platforms/catalogue.ts';
import { createAiService } from './ai.service.ts';
import type { BrandInput } from './ai.types.ts';
import { defineTask, findTask, listTasks, registerTask } from './tasks.ts';

const noDatabase: Queryable = {
  query: () => {
    throw new Error('the deterministic engine must not touch the database');
  },
} as unknown as Queryable;

const metrics = createMetrics();
const ai = createAiService({
  config: loadConfig({}).ai,
  pool: noDatabase,
  clock: { now: () => new Date('2026-03-01T12:00:00Z') },
  logger: createLogger('silent'),
  metrics,
});

const brand: BrandInput = {
  brand_id: 'brand_1',
  text: 'Brand: Acme Solar. Voice: warm, plain.',
  fields: {
    name: 'Acme Solar',
    default_hashtags: ['#AcmeSolar'],
    signature: '— The Acme team',
    cta_default: 'Book a free survey at acme.example.',
    voice: { hashtags: 'few' },
  },
};

const SOURCE = [
  'Acme installed solar panels on the village school this spring.',
  'The panels and a battery now cover most of the school electricity.',
  'Pupils follow the solar output on a screen in the hall.',
  'The weather was fine.',
  'Other schools in the county have asked for the same solar and battery setup.',
].join(' ');

const WORKSPACE = '00000000-0000-4000-8000-000000000001';

test('the built-in tasks are registered and each one is documented', () => {
  const names = listTasks().map((t) => t.name);
  for (const name of ['summarize', 'thread', 'hashtags', 'caption', 'reply_draft', 'post_from_template'])
    assert.ok(names.includes(name), name);
  for (const t of listTasks()) assert.ok(t.summary.length > 20 && t.instructions.length > 20, t.name);
  assert.throws(() => registerTask(findTask('summarize')!), /already registered/);
});

test('every task answers deterministically within its schema and checks, with its provenance', async () => {
  const cases: [string, Record<string, unknown>][] = [
    ['summarize', { text: SOURCE, max_sentences: 2 }],
    ['thread', { text: SOURCE.repeat(4), platform: 'x' }],
    ['thread', { text: SOURCE.repeat(4), platform: 'bluesky' }],
    ['hashtags', { text: SOURCE, platform: 'instagram' }],
    ['caption', { text: SOURCE, platform: 'x' }],
    ['reply_draft', { message: 'Do you install on flat roofs?', author: 'Sam' }],
    [
      'post_from_template',
      { template: 'New at {{brand.name}}: {{topic}}. {{brand.cta}}', values: { topic: 'batteries' } },
    ],
  ];
  for (const [name, inputs] of cases) {
    const task = findTask(name)!;
    const result = await ai.generate({ task: name, brand, inputs, workspaceId: WORKSPACE });
    assert.ok(bodyValidator(task.output)(result.output), `${name}: ${JSON.stringify(result.output)}`);
    assert.deepEqual(task.verify?.(result.output, { ...inputs }, { brand }) ?? [], [], name);
    assert.deepEqual(result.generated_by, { engine: task.engine, provider: 'deterministic', model: null });
    assert.deepEqual(result.usage, { calls: 0, prompt_tokens: 0, completion_tokens: 0 });
  }
});

test('what each deterministic answer holds', async () => {
  const run = async (task: string, inputs: Record<string, unknown>) =>
    (await ai.generate({ task, brand, inputs, workspaceId: WORKSPACE })).output as Record<string, unknown>;

  const summary = (await run('summarize', { text: SOURCE, max_sentences: 1 })).summary as string;
  assert.ok(SOURCE.includes(summary) && /solar/i.test(summary), summary);

  const thread = await run('thread', { text: SOURCE.repeat(4), platform: 'x' });
  const parts = thread.parts as string[];
  assert.ok(parts.length > 1 && parts.every((p, i) => p.endsWith(` ${i + 1}/${parts.length}`)));
  assert.equal(thread.condensed, false);

  const tags = (await run('hashtags', { text: SOURCE })).hashtags as string[];
  assert.equal(tags[0], '#AcmeSolar');
  assert.equal(tags.length, 3); // voice.hashtags "few"
  assert.ok(tags.includes('#solar'), tags.join(' '));

  const caption = (await run('caption', { text: SOURCE.repeat(3), platform: 'x' })).text as string;
  assert.deepEqual(PLATFORM_LIMITS.x.text.check(caption), []);
  assert.match(caption, /\n\n#AcmeSolar/);

  const reply = (await run('reply_draft', { message: 'Do you install on flat roofs?', author: 'Sam' })).text as string;
  assert.equal(
    reply,
    'Hi Sam, thank you for your message. We will come back to you with an answer shortly. Book a free survey at acme.example.\n\n— The Acme team',
  );

  const post = (
    await run('post_from_template', {
      template: 'New at {{brand.name}}: {{topic}}. {{missing}}',
      values: { topic: 'batteries' },
    })
  ).text;
  assert.equal(post, 'New at Acme Solar: batteries.');
});

test('a text too long for one thread is condensed to its best sentences, and says so', async () => {
  const long = Array.from(
    { length: 200 },
    (_, i) => `Point ${i + 1} is about solar panels, batteries and the grid in some detail.`,
  ).join(' ');
  const result = await ai.generate({
    task: 'thread',
    brand,
    inputs: { text: long, platform: 'bluesky' },
    workspaceId: WORKSPACE,
  });
  const output = result.output as { parts: string[]; condensed: boolean };
  assert.equal(output.condensed, true);
  assert.ok(output.parts.length <= PLATFORM_LIMITS.bluesky.maxThreadParts);
  for (const p of output.parts) assert.deepEqual(PLATFORM_LIMITS.bluesky.text.check(p), []);
});

test('bad inputs and unknown tasks are clear validation errors naming the input', async () => {
  const refused = async (request: Parameters<typeof ai.generate>[0]) => {
    try {
      await ai.generate(request);
    } catch (error) {
      assert.ok(error instanceof AppError);
      return error;
    }
    assert.fail('expected a refusal');
  };
  const unknown = await refused({ task: 'poem', brand, inputs: {}, workspaceId: WORKSPACE });
  assert.equal(unknown.code, 'PUBLIC_API_VALIDATION_FAILED');
  assert.match(unknown.message, /Unknown task "poem"; known tasks: summarize/);

  const noThreads = await refused({
    task: 'thread',
    brand,
    inputs: { text: 'Hi.', platform: 'instagram' },
    workspaceId: WORKSPACE,
  });
  assert.equal(noThreads.details?.[0]?.path, '/inputs/platform');
  assert.match(noThreads.details![0]!.message, /must be one of: x, threads, bluesky, mastodon/);

  const blank = await refused({ task: 'summarize', brand, inputs: { text: '   ' }, workspaceId: WORKSPACE });
  assert.equal(blank.details?.[0]?.path, '/inputs/text');
  const extra = await refused({ task: 'summarize', brand, inputs: { text: 'x', ignore: 1 }, workspaceId: WORKSPACE });
  assert.deepEqual(extra.details?.[0], {
    path: '/inputs/ignore',
    message: 'is not a known input',
    rule: 'ai_input_invalid',
  });
});

test("a caller's own task definition is accepted without registering it, and typed by its schemas", async () => {
  const shout = defineTask({
    name: 'shout',
    summary: 'The text in capitals, as a test of caller-defined tasks.',
    instructions: 'Write the text in capitals.',
    input: Type.Object({ text: Type.String() }, { additionalProperties: false }),
    output: Type.Object({ text: Type.String() }, { additionalProperties: false }),
    engine: 'rules',
    deterministic: (inputs) => ({ text: inputs.text.toUpperCase() }),
  });
  const result = await ai.generate<{ text: string }>({
    task: shout,
    brand,
    inputs: { text: 'hey' },
    workspaceId: WORKSPACE,
  });
  assert.equal(result.output.text, 'HEY');
  assert.equal(findTask('shout'), undefined);
  assert.match(
    await metrics.registry.metrics(),
    /herald_ai_generations_total\{task="shout",engine="rules",fallback_reason=""\} 1/,
  );
});

test("banned terms in an answer are matched as the posts' brand rules match them: whole words, any case", () => {
  const caption = findTask('caption')!;
  const banned: BrandInput = { text: '', fields: { banned_terms: ['cheap', 'ad'] } };
  const check = (text: string) =>
    caption.verify!({ text }, { text: 'x', platform: 'x', hashtags: true }, { brand: banned });
  assert.deepEqual(check('Our cheapest roast, read all about it'), []);
  assert.deepEqual(check('A CHEAP roast'), ['uses the banned term "cheap"']);
  assert.deepEqual(check('New #ad: beans'), ['uses the banned term "ad"']);
});

test('the deterministic answers stay within their schema on degenerate texts: no sentence end, a huge word', async () => {
  const run = (task: string, inputs: Record<string, unknown>) =>
    ai.generate<Record<string, unknown>>({ task, brand, inputs, workspaceId: 'w' });
  const endless = 'word '.repeat(3_000).trim();
  const summary = (await run('summarize', { text: endless })).output.summary as string;
  assert.ok(summary.length <= 10_000, `${summary.length} characters`);
  const token = 'x'.repeat(5_000);
  const tags = (await run('hashtags', { text: `${token} solar panels on the school roof` })).output
    .hashtags as string[];
  assert.ok(tags.length > 0);
  assert.ok(
    tags.every((tag) => tag.length <= 100),
    tags.join(' '),
  );
});

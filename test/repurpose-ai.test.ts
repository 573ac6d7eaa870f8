// Repurpose with an OpenAI-compatible provider (the in-process fake, test/helpers/fake-llm.ts): the model's JSON
// answer is used and then fitted like the extractive engine's (a long part split for X, numbered); an answer that
// breaks the schema is asked for once more and then replaced by the extractive engine, with the reason recorded.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { PLATFORM_LIMITS } from '../src/platforms/catalogue.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { startFakeLlm, type FakeLlm } from './helpers/fake-llm.ts';
import { jobEnded, startJob } from './helpers/repurpose.ts';

let t: TestApp;
let fake: FakeLlm;
let worker: WorkerHandle;
let key: string;

const SOURCE = [
  'Our spring release brings offline mode to every plan.',
  'Drafts now sync the moment a device reconnects.',
  'Teams on the free plan get three shared calendars.',
  'Support answers within one hour on weekdays.',
].join(' ');

before(async () => {
  fake = await startFakeLlm();
  t = await buildTestApp({
    env: {
      HERALD_AI_PROVIDER: 'openai_compatible',
      HERALD_AI_BASE_URL: fake.baseUrl,
      HERALD_AI_API_KEY: 'sk-test-repurpose',
      HERALD_AI_MODEL: 'fake-model',
    },
  });
  worker = await startWorker(t.container);
  key = await t.key();
});
after(async () => {
  await worker.stop();
  await t.close();
  await fake.close();
});

test('the model’s answer is used, then fitted: a part too long for X is split at sentence boundaries', async () => {
  const long = Array.from({ length: 14 }, (_, i) => `Point ${i + 1} of the release makes planning a little easier.`);
  fake.answer(() => ({ json: { parts: [long.join(' '), 'Try it today.'], hashtags: ['#release'] } }));
  const before = fake.requests.length;
  const job = await jobEnded(
    t,
    key,
    (
      await startJob(t, key, {
        source: { type: 'text', text: SOURCE, title: 'Spring release' },
        targets: [{ platform: 'x', format: 'thread' }],
        options: { tone: 'upbeat' },
      })
    ).id,
  );
  assert.equal(job.status, 'completed', JSON.stringify(job.outputs));
  assert.deepEqual(job.generated_by, { engine: 'llm', provider: 'openai_compatible', model: 'fake-model' });
  const request = fake.requests[before]!;
  assert.equal(request.body.response_format?.type, 'json_schema');
  assert.ok(
    request.body.messages.some((m) => m.content.includes('offline mode')),
    'the source goes to the model as data',
  );
  const [out] = job.outputs;
  assert.ok(out.parts.length >= 3, 'the long part was split');
  out.parts.forEach((part: string, i: number) => {
    assert.deepEqual(PLATFORM_LIMITS.x.text.check(part), [], part);
    assert.ok(part.endsWith(` ${i + 1}/${out.parts.length}`));
  });
  assert.ok(out.hashtags.includes('#release'));
});

test('an answer that breaks the schema twice falls back to the extractive engine', async () => {
  fake.answer(() => 'bad_json');
  const before = fake.requests.length;
  const job = await jobEnded(
    t,
    key,
    (
      await startJob(t, key, {
        source: { type: 'text', text: SOURCE, title: 'Spring release' },
        targets: [{ platform: 'linkedin', format: 'post' }],
      })
    ).id,
  );
  assert.equal(job.status, 'completed', JSON.stringify(job.outputs));
  assert.equal(fake.requests.length - before, 2, 'one retry, then the engine');
  assert.deepEqual(job.generated_by, {
    engine: 'extractive',
    provider: 'deterministic',
    model: null,
    fallback_reason: 'invalid_output',
  });
  assert.match(job.outputs[0].content, /^Spring release/);
});

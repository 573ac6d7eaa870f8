// YouTube's rules at post creation, through the public API: one video, a title from the options or the text's
// first line, tags within 500 characters as YouTube counts them, no < or > in title or description — each a clear
// 422 naming the rule (or a 400 for a title the schema refuses), before anything is sent to YouTube.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp();
  const { workspaceId } = await t.workspace('test');
  key = await t.key({ workspaceIds: [workspaceId] });
});
after(() => t.close());

const create = (payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: '/v1/posts', key, payload: { platforms: ['youtube'], ...payload } });

const rulesOf = (body: string) =>
  (JSON.parse(body) as { error: { details: Array<{ rule: string; path: string }> } }).error.details;

test('no video, no title and tags past 500 characters are refused with a 422 naming each rule', async () => {
  const res = await create({
    content: '',
    platform_options: { youtube: { tags: Array.from({ length: 50 }, () => 'tag number') } }, // 50 × 12 + 49
  });
  assert.equal(res.statusCode, 422, res.body);
  const details = rulesOf(res.body);
  const rules = details.map((d) => d.rule);
  for (const rule of ['media_required', 'youtube_title_required', 'youtube_tags_too_long'])
    assert.ok(rules.includes(rule), `${rule} in ${rules.join(', ')}`);
  assert.equal(details.find((d) => d.rule === 'youtube_tags_too_long')!.path, '/platform_options/youtube');
});

test('a title option stands in for empty text; the text then needs no title line', async () => {
  const res = await create({ content: '', platform_options: { youtube: { title: 'My video' } } });
  const rules = rulesOf(res.body).map((d) => d.rule);
  assert.ok(!rules.includes('youtube_title_required'), rules.join(', '));
});

test('< or > in the description is a 422; in the title (or a blank title) a 400 from the schema; an unknown privacy a 400', async () => {
  const angle = await create({ content: 'a <b> description' });
  assert.equal(angle.statusCode, 422, angle.body);
  assert.ok(rulesOf(angle.body).some((d) => d.rule === 'text_angle_brackets'));
  const refused = [
    { title: 'a <b> title' },
    { title: 'x'.repeat(101) },
    { title: '   ' },
    { privacy_status: 'friends' },
  ];
  for (const youtube of refused) {
    const res = await create({ content: 'fine', platform_options: { youtube } });
    assert.equal(res.statusCode, 400, `${JSON.stringify(youtube)}: ${res.body}`);
  }
});

// Pinterest through Herald's API: a connection shows the account's boards as options, and a post to Pinterest must
// name one (`platform_options.pinterest.board_id`, or `boards`: one per connection); the Pin's own options are checked by schema (400) and by rule
// (422) before anything is stored.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
});
after(() => t.close());

const validate = (payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: '/v1/posts/validate', key, idem: false, payload });
const rules = async (payload: Record<string, unknown>) =>
  ((await validate(payload)).json().data.issues as Array<{ platform: string; rule: string; path: string }>)
    .filter((i) => i.platform === 'pinterest')
    .map((i) => `${i.rule} ${i.path}`)
    .sort();

describe('Pinterest boards and options', () => {
  test("GET /v1/connections/{id} lists the Pinterest account's boards as options; other platforms have none", async () => {
    const pinterest = (await t.inject({ url: `/v1/connections/${t.connections.pinterest}`, key })).json().data;
    assert.deepEqual(
      pinterest.options.boards.map((b: { name: string; privacy: string }) => `${b.name} ${b.privacy}`),
      ['Herald sandbox PUBLIC', 'Drafts (secret) SECRET'],
    );
    for (const b of pinterest.options.boards) assert.match(b.id, /^\d+$/);
    const x = (await t.inject({ url: `/v1/connections/${t.connections.x}`, key })).json().data;
    assert.equal(x.options, undefined);
  });

  test('a Pinterest post without a board or media is 422 board_required and media_required', async () => {
    assert.deepEqual(await rules({ content: 'a pin', platforms: ['pinterest'] }), [
      'board_required /platform_options/pinterest',
      'media_required /media_ids',
    ]);
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'a pin', platforms: ['pinterest'] },
    });
    assert.equal(res.statusCode, 422);
    assert.ok(res.json().error.details.some((d: { rule: string }) => d.rule === 'board_required'));
  });

  test('boards gives each Pinterest connection its own board; one naming a connection the post does not use is 422', async () => {
    const conn = t.connections.pinterest!;
    assert.deepEqual(
      await rules({
        content: 'a pin',
        platforms: ['pinterest'],
        platform_options: { pinterest: { boards: { [conn]: '1' } } },
      }),
      ['media_required /media_ids'],
    );
    assert.deepEqual(
      await rules({
        content: 'a pin',
        platforms: ['pinterest'],
        platform_options: { pinterest: { boards: { conn_0000000000000000000000000: '1' } } },
      }),
      [
        `board_connection_not_targeted /platform_options/pinterest/boards/conn_0000000000000000000000000`,
        `board_required /platform_options/pinterest/boards`,
        'media_required /media_ids',
      ],
    );
    const res = await validate({
      content: 'x',
      platforms: ['pinterest'],
      platform_options: { pinterest: { boards: { 'not-a-connection': '1' } } },
    });
    assert.equal(res.statusCode, 400);
  });

  test('a cover time with more than one media item is 422; a description over 500 characters is text_too_long', async () => {
    const options = { pinterest: { board_id: '549755885175', cover_time_seconds: 2 } };
    assert.deepEqual(await rules({ content: 'é'.repeat(501), platforms: ['pinterest'], platform_options: options }), [
      'cover_time_single_video /platform_options/pinterest',
      'media_required /media_ids',
      'text_too_long /content',
    ]);
  });

  test('a board id that is not digits, a link that is not http(s), a title over 100 and an unknown option are 400', async () => {
    for (const pinterest of [
      { board_id: '../boards' },
      { board_id: '1', link: 'javascript:alert(1)' },
      { board_id: '1', title: 't'.repeat(101) },
      { board_id: '1', alt_text: 'a'.repeat(501) },
      { board_id: '1', thread: ['no threads'] },
    ]) {
      const res = await validate({ content: 'x', platforms: ['pinterest'], platform_options: { pinterest } });
      assert.equal(res.statusCode, 400, JSON.stringify(pinterest));
      assert.equal(res.json().error.code, 'PUBLIC_API_BODY_INVALID');
    }
  });
});

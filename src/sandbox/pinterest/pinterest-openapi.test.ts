// The simulator's answers against the shapes of the OpenAPI description Pinterest publishes (pinterest/api-description,
// v5/openapi.json, read December 2025): for each schema Herald meets, the fields it has and the fields it requires,
// written down here. An answer may carry no field the schema lacks and must carry every one it requires, so the
// simulator cannot drift into shapes Pinterest does not send (docs/platforms/pinterest.md "Independent check").
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { jpeg, mediaFetchSettings, mp4, servedUrl } from '../../../test/helpers/media-sources.ts';
import { startSandbox, type RunningSandbox } from '../server.ts';

interface Shape {
  fields: string[];
  required: string[];
}

const token = ['access_token', 'expires_in', 'refresh_token', 'refresh_token_expires_at', 'refresh_token_expires_in'];
const SCHEMAS: Record<string, Shape> = {
  OauthAccessTokenResponseCode: {
    fields: [...token, 'response_type', 'scope', 'token_type'],
    required: ['access_token', 'expires_in', 'scope', 'token_type'],
  },
  OauthAccessTokenResponseRefresh: {
    fields: [...token, 'response_type', 'scope', 'token_type'],
    required: [...token, 'scope', 'token_type'],
  },
  Account: {
    fields: ['about', 'account_type', 'board_count', 'business_name', 'follower_count', 'following_count', 'id'],
    required: [],
  },
  Board: {
    fields: ['board_pins_modified_at', 'collaborator_count', 'created_at', 'description', 'follower_count', 'id'],
    required: ['id', 'name'],
  },
  Pin: {
    fields: ['alt_text', 'board_id', 'board_owner', 'board_section_id', 'created_at', 'creative_type', 'description'],
    required: ['id'],
  },
  PinMediaWithImage: { fields: ['images', 'media_type'], required: ['media_type'] },
  PinMediaWithImages: { fields: ['items', 'media_type'], required: ['media_type'] },
  PinMediaWithVideo: {
    fields: ['cover_image_url', 'duration', 'height', 'images', 'media_type', 'video_url', 'width'],
    required: ['media_type'],
  },
  MediaUpload: { fields: ['media_id', 'media_type', 'upload_parameters', 'upload_url'], required: ['media_id'] },
  Media: { fields: ['media_id', 'media_type', 'status'], required: ['media_id', 'media_type'] },
  Error: { fields: ['code', 'message'], required: ['code', 'message'] },
};
// The rest of the longer field lists (kept apart to keep lines short).
SCHEMAS.Account!.fields.push('monthly_views', 'pin_count', 'profile_image', 'username', 'website_url');
SCHEMAS.Board!.fields.push('is_ads_only', 'media', 'name', 'owner', 'pin_count', 'privacy');
SCHEMAS.Pin!.fields.push('dominant_color', 'has_been_promoted', 'id', 'is_owner', 'is_standard', 'link', 'media');
SCHEMAS.Pin!.fields.push('parent_pin_id', 'pin_metrics', 'title');
SCHEMAS.MediaUpload!.required.push('media_type');

function conforms(name: string, answer: unknown): void {
  const shape = SCHEMAS[name]!;
  assert.ok(answer && typeof answer === 'object', `${name}: an object`);
  const keys = Object.keys(answer);
  assert.deepEqual(
    keys.filter((k) => !shape.fields.includes(k)),
    [],
    `${name}: fields the schema lacks`,
  );
  assert.deepEqual(
    shape.required.filter((k) => !keys.includes(k)),
    [],
    `${name}: required fields missing`,
  );
}

let sandbox: RunningSandbox;
let base: string;
const basic = `Basic ${Buffer.from('app:secret').toString('base64')}`;

before(async () => {
  sandbox = await startSandbox({ platforms: ['pinterest'], settings: await mediaFetchSettings() });
  base = sandbox.baseUrl('pinterest');
});
after(() => sandbox.close());

const form = (body: Record<string, string>) =>
  fetch(`${base}/v5/oauth/token`, {
    method: 'POST',
    headers: { authorization: basic },
    body: new URLSearchParams(body),
  });

test("every answer Herald reads has the shape of Pinterest's OpenAPI schema", async () => {
  const query = new URLSearchParams({
    client_id: 'app',
    redirect_uri: 'http://127.0.0.1/cb',
    response_type: 'code',
    scope: 'pins:read',
    sandbox_username: 'openapi_shapes',
  });
  const location = (await fetch(`${base}/oauth/?${query}`, { redirect: 'manual' })).headers.get('location')!;
  const code = new URL(location).searchParams.get('code')!;
  const tokens = (await (
    await form({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1/cb' })
  ).json()) as { access_token: string; refresh_token: string };
  conforms('OauthAccessTokenResponseCode', tokens);
  conforms(
    'OauthAccessTokenResponseRefresh',
    await (await form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).json(),
  );
  const headers = { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' };
  const get = async (path: string) => (await fetch(`${base}${path}`, { headers })).json();
  const post = async (path: string, body: unknown) =>
    (await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();

  conforms('Account', await get('/v5/user_account'));
  const boards = (await get('/v5/boards')) as { items: Array<{ id: string }> };
  for (const board of boards.items) conforms('Board', board);
  const url = await servedUrl(`openapi-${Date.now()}`, jpeg(12, 18), 'image/jpeg');
  const board_id = boards.items[0]!.id;
  const image = (await post('/v5/pins', { board_id, media_source: { source_type: 'image_url', url } })) as {
    id: string;
    media: unknown;
  };
  conforms('Pin', image);
  conforms('PinMediaWithImage', image.media);
  const items = [{ url }, { url }];
  const carousel = (await post('/v5/pins', {
    board_id,
    media_source: { source_type: 'multiple_image_urls', items },
  })) as {
    media: unknown;
  };
  conforms('PinMediaWithImages', carousel.media);

  const upload = (await post('/v5/media', { media_type: 'video' })) as {
    media_id: string;
    upload_url: string;
    upload_parameters: Record<string, string>;
  };
  conforms('MediaUpload', upload);
  const body = new FormData();
  for (const [k, v] of Object.entries(upload.upload_parameters)) body.append(k, v);
  body.append('file', new Blob([new Uint8Array(mp4(2048))], { type: 'video/mp4' }), 'v.mp4');
  assert.equal((await fetch(upload.upload_url, { method: 'POST', body })).status, 204);
  let media = (await get(`/v5/media/${upload.media_id}`)) as { status: string };
  conforms('Media', media);
  for (let i = 0; i < 50 && media.status !== 'succeeded'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    media = (await get(`/v5/media/${upload.media_id}`)) as { status: string };
  }
  const video = (await post('/v5/pins', {
    board_id,
    media_source: { source_type: 'video_id', media_id: upload.media_id, cover_image_key_frame_time: 0 },
  })) as { media: unknown };
  conforms('Pin', video);
  conforms('PinMediaWithVideo', video.media);
  conforms('Error', await get('/v5/pins/1'));
  conforms('Error', await post('/v5/pins', {}));
});

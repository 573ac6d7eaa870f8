// Every setting Herald reads, in the order the configuration tables (README, docs/api.md) list them.
import { ACCESS_SETTINGS } from './access.ts';
import { ANALYTICS_SETTINGS } from './analytics.ts';
import { AUTOMATION_SETTINGS } from './automations.ts';
import { AI_SETTINGS } from './ai.ts';
import { INBOX_INGEST_SETTINGS } from './inbox-ingest.ts';
import { MAIL_SETTINGS } from './mail.ts';
import { MEDIA_SETTINGS, S3_SETTINGS } from './media.ts';
import {
  CONNECT_LINK_SETTINGS,
  META_APP_SETTINGS,
  META_SETTINGS,
  PLATFORM_API_SETTINGS,
  SANDBOX_SETTINGS,
  OAUTH_APP_SETTINGS,
} from './platforms.ts';
import { SERVER_SETTINGS } from './server.ts';
import type { Setting } from './setting.ts';
import { PUBLISHING_SETTINGS, WEBHOOK_SETTINGS, WORKER_SETTINGS } from './workers.ts';

export const SETTINGS: readonly Setting<unknown>[] = [
  ...Object.values(SERVER_SETTINGS),
  ...Object.values(WORKER_SETTINGS),
  ...Object.values(SANDBOX_SETTINGS),
  ...Object.values(PLATFORM_API_SETTINGS),
  ...Object.values(PUBLISHING_SETTINGS),
  ...Object.values(WEBHOOK_SETTINGS),
  ...Object.values(ANALYTICS_SETTINGS),
  ...Object.values(AUTOMATION_SETTINGS),
  ...Object.values(INBOX_INGEST_SETTINGS),
  ...Object.values(MEDIA_SETTINGS),
  ...Object.values(S3_SETTINGS),
  ...Object.values(ACCESS_SETTINGS),
  ...Object.values(MAIL_SETTINGS),
  ...Object.values(META_SETTINGS),
  ...Object.values(META_APP_SETTINGS).flatMap((app) => [app.clientId, app.clientSecret]),
  OAUTH_APP_SETTINGS.tiktok.clientId,
  OAUTH_APP_SETTINGS.tiktok.clientSecret,
  OAUTH_APP_SETTINGS.youtube.clientId,
  OAUTH_APP_SETTINGS.youtube.clientSecret,
  OAUTH_APP_SETTINGS.pinterest.clientId,
  OAUTH_APP_SETTINGS.pinterest.clientSecret,
  OAUTH_APP_SETTINGS.googlebusiness.clientId,
  OAUTH_APP_SETTINGS.googlebusiness.clientSecret,
  ...Object.values(CONNECT_LINK_SETTINGS),
  ...Object.values(AI_SETTINGS),
];

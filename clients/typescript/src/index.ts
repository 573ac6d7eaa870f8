// @herald/client: the official TypeScript client of Herald's HTTP API.
export { createHerald, type Herald, type HeraldOptions, type Media, type Post } from './client.js';
export { HeraldError, type HeraldErrorDetail, type HeraldErrorInit } from './errors.js';
export { createTransport, retryAfterMs, type RetryOptions, type TransportOptions } from './transport.js';
export type { UploadOptions, UploadSource } from './upload.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';
export type {
  components,
  HeraldPaths,
  ListItem,
  ListPaths,
  operations,
  paths,
  Payload,
  PathsWith,
  Schemas,
} from './types.js';

// Facebook Pages rows in front of the shared Meta Graph error table (src/platforms/meta/graph-errors.ts): the
// photo and video upload failures, link scraping, the OAuth code errors of Facebook Login, and app errors.
import type { GraphErrorRule } from '../meta/graph-errors.ts';

export const FACEBOOK_ERRORS: readonly GraphErrorRule[] = [
  {
    code: 100,
    subcode: [36006, 36007, 36008, 36009],
    kind: 'auth_expired',
    platformCode: 'PLATFORM_RECONNECT_REQUIRED',
    why: 'Facebook Login: the authorization code is malformed, expired, used already, or its redirect_uri differs.',
  },
  {
    code: 1,
    message: /client secret|client_secret/i,
    kind: 'permanent',
    platformCode: 'PLATFORM_PERMISSION_DENIED',
    why: 'The app id and secret do not match (a configuration error, not an outage).',
  },
  {
    code: [101, 191],
    kind: 'permanent',
    platformCode: 'PLATFORM_PERMISSION_DENIED',
    why: 'Invalid app id / missing redirect_uri: the app is misconfigured.',
  },
  {
    code: 100,
    subcode: 1609005,
    kind: 'invalid_content',
    platformCode: 'PLATFORM_CONTENT_REJECTED',
    why: 'The link could not be scraped or is not a URL.',
  },
  {
    code: 100,
    subcode: 1363047,
    kind: 'transient',
    platformCode: 'PLATFORM_UNAVAILABLE',
    why: 'The video is still processing: publish again later.',
  },
  {
    code: [100, 324],
    subcode: 1366046,
    kind: 'media_rejected',
    platformCode: 'PLATFORM_MEDIA_REJECTED',
    why: 'The photo is missing, too large or not an image.',
  },
  {
    code: 324,
    kind: 'media_rejected',
    platformCode: 'PLATFORM_MEDIA_REJECTED',
    why: '"Requires upload file" / invalid image file.',
  },
  {
    code: 6001,
    subcode: 1363023,
    kind: 'media_rejected',
    platformCode: 'PLATFORM_MEDIA_REJECTED',
    why: 'The video file is too large.',
  },
  {
    code: { from: 6000, to: 6001 },
    kind: 'transient',
    platformCode: 'PLATFORM_UNAVAILABLE',
    why: 'A video upload step failed (offset, session): the upload starts over on the next try.',
  },
];

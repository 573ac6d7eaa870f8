// Google Business Profile local-post limits (docs/platforms/googlebusiness.md "Limits"): the post's `summary` of at most
// 1,500 characters, one photo pulled by Google from a URL, no threads; and the rules tying the post's own options
// (`platform_options.googlebusiness`: topic type, event, offer, call to action) together. The simulator enforces the
// same values.
import type { LimitIssue, PlatformLimits } from '../limits.ts';

/** The local post's `summary`, at most 1,500 characters (⚠ unverified: the API reference gives no number). */
export const MAX_LENGTH = 1500;
/** Event titles, at most 58 characters (⚠ unverified: the figure is the Business Profile editor's). */
export const MAX_EVENT_TITLE = 58;
const MB = 1_000_000;

export const TOPIC_TYPES = ['STANDARD', 'EVENT', 'OFFER'] as const;
export type TopicType = (typeof TOPIC_TYPES)[number];
/** The call-to-action types Herald sends (GET_OFFER is deprecated in the reference; OFFER posts carry the offer). */
export const ACTION_TYPES = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/**
 * Characters as Google counts them: ⚠ unverified (the reference gives neither the limit nor the unit); Unicode code
 * points, which counts an emoji as one where UTF-16 would count two.
 */
export function measure(text: string): number {
  return [...text].length;
}

/** Every text issue; empty text is not flagged (a photo-only post is the caller's rule). */
function check(text: string): LimitIssue[] {
  const length = measure(text);
  return length > MAX_LENGTH
    ? [
        {
          rule: 'text_too_long',
          message: `Text is ${length} characters; a Google Business Profile post allows ${MAX_LENGTH}.`,
        },
      ]
    : [];
}

/** The options as the adapter reads them (already schema-checked: types and enums). */
export interface GooglebusinessOptions {
  topic_type?: TopicType;
  call_to_action?: { action_type: ActionType; url?: string };
  event?: { title?: string; start?: string; end?: string };
  offer?: { coupon_code?: string; redeem_url?: string; terms?: string };
  language?: string;
}

/** Whether `YYYY-MM-DD[THH:MM]` names a real day and time (the schema checks only its shape). */
function realDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  const timeOk = m[4] === undefined || (Number(m[4]) < 24 && Number(m[5]) < 60);
  return timeOk && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The rules the schema cannot state: which fields each topic type needs or forbids (422 at creation). */
export function checkOptions(raw: Record<string, unknown>): LimitIssue[] {
  const o = raw as GooglebusinessOptions;
  const topic = o.topic_type ?? 'STANDARD';
  const issues: LimitIssue[] = [];
  const issue = (rule: string, message: string) => issues.push({ rule, message });
  if (topic !== 'STANDARD' && !o.event?.title)
    issue(
      'event_title_required',
      `An ${topic} post needs event.title (the name of the ${topic === 'EVENT' ? 'event' : 'offer'}).`,
    );
  if ((topic === 'EVENT' || topic === 'OFFER') && (!o.event?.start || !o.event?.end))
    issue('event_schedule_required', `An ${topic} post needs event.start and event.end (when it runs).`);
  if (topic === 'STANDARD' && o.event)
    issue('event_not_allowed', 'A STANDARD post takes no event; set topic_type to EVENT or OFFER.');
  if (topic !== 'OFFER' && o.offer) issue('offer_not_allowed', 'offer applies to OFFER posts only.');
  if (topic === 'OFFER' && o.call_to_action)
    issue(
      'call_to_action_on_offer',
      'Google ignores call_to_action on OFFER posts; use offer.redeem_url for the offer link.',
    );
  for (const at of ['start', 'end'] as const) {
    const value = o.event?.[at];
    if (value !== undefined && !realDate(value))
      issue('event_date_invalid', `event.${at} is not a date of the calendar: ${value}.`);
  }
  // Both in the location's local time and zero-padded: the strings order as the times do (a date alone is its day).
  if (o.event?.start && o.event.end && o.event.end < o.event.start)
    issue('event_schedule_order', 'event.end must not be before event.start.');
  const cta = o.call_to_action;
  if (cta?.action_type === 'CALL' && cta.url !== undefined)
    issue('call_has_no_url', "A CALL action dials the location's phone number; remove call_to_action.url.");
  if (cta && cta.action_type !== 'CALL' && cta.url === undefined)
    issue('call_to_action_url_required', `A ${cta.action_type} action needs call_to_action.url.`);
  return issues;
}

export const limits: PlatformLimits = {
  platform: 'googlebusiness',
  displayName: 'Google Business Profile',
  text: { maxLength: MAX_LENGTH, unit: 'characters', measure, check },
  media: {
    // One photo, which Google fetches from Herald's signed URL (`media[].sourceUrl`). ⚠ unverified: the reference
    // takes a list and a VIDEO format; the Business Profile editor allows one photo per update, and Herald sends that.
    maxItems: 1,
    required: false,
    mixKinds: false,
    // Business Profile photos: JPEG or PNG, 10 KB to 5 MB, at least 250×250 px (⚠ unverified for posts: the figures
    // are the profile-photo guidelines). Herald fits larger images down to 5 MB; no pixel or aspect bound is documented.
    imageFit: { maxBytes: 5 * MB },
    kinds: {
      image: { contentTypes: ['image/jpeg', 'image/png'], maxBytes: 5 * MB, maxCount: 1 },
    },
  },
  // A local post is one post: there are no replies to chain.
  maxThreadParts: 0,
  checkOptions: (options) => checkOptions(options),
};

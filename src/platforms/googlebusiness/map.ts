// Pure translation between Herald's part and a My Business v4 LocalPost (docs/platforms/googlebusiness.md "Calls"):
// `platform_options.googlebusiness` (snake_case, dates as the location's local `YYYY-MM-DD[THH:MM]`) into the
// LocalPost body, and the listed posts back into what a look-up compares.
import type { PreparedMedia } from '../types.ts';
import type { GooglebusinessOptions, TopicType } from './limits.ts';

type GoogleDate = { year: number; month: number; day: number };
type TimeOfDay = { hours: number; minutes: number; seconds: number; nanos: number };

/** `2026-12-01` or `2026-12-01T18:30` (the location's own time: Google reads the schedule in it) as Google's types. */
export function dateAndTime(value: string): { date: GoogleDate; time?: TimeOfDay } {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/.exec(value);
  if (!m) throw new Error(`not a local date or date-time: ${value}`);
  const date = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  return m[4] === undefined
    ? { date }
    : { date, time: { hours: Number(m[4]), minutes: Number(m[5]), seconds: 0, nanos: 0 } };
}

export function topicOf(options: GooglebusinessOptions): TopicType {
  return options.topic_type ?? 'STANDARD';
}

/** The LocalPost body of a part: summary, topic type, its event or offer, the call to action, the photo by URL. */
export function localPostBody(
  text: string,
  options: GooglebusinessOptions,
  media: readonly PreparedMedia[],
): Record<string, unknown> {
  const topicType = topicOf(options);
  const body: Record<string, unknown> = { topicType, summary: text };
  if (options.language) body.languageCode = options.language;
  if (topicType !== 'STANDARD' && options.event?.start && options.event.end) {
    const start = dateAndTime(options.event.start);
    const end = dateAndTime(options.event.end);
    body.event = {
      title: options.event.title,
      schedule: {
        startDate: start.date,
        endDate: end.date,
        ...(start.time ? { startTime: start.time } : {}),
        ...(end.time ? { endTime: end.time } : {}),
      },
    };
  }
  if (topicType === 'OFFER' && options.offer) {
    const o = options.offer;
    body.offer = {
      ...(o.coupon_code !== undefined ? { couponCode: o.coupon_code } : {}),
      ...(o.redeem_url !== undefined ? { redeemOnlineUrl: o.redeem_url } : {}),
      ...(o.terms !== undefined ? { termsConditions: o.terms } : {}),
    };
  }
  if (options.call_to_action && topicType !== 'OFFER') {
    const cta = options.call_to_action;
    body.callToAction = { actionType: cta.action_type, ...(cta.url !== undefined ? { url: cta.url } : {}) };
  }
  if (media.length > 0) body.media = media.map((m) => ({ mediaFormat: 'PHOTO', sourceUrl: m.platformRef }));
  return body;
}

/** `accounts/{a}/locations/{l}/localPosts/{p}` → `{p}`. */
export const localPostId = (name: string) => name.slice(name.lastIndexOf('/') + 1);

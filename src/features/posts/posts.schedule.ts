// When a post is due (docs/api.md "Scheduling in a time zone"): `schedule_at` with `Z` or an offset is an absolute
// instant; without one it is a wall-clock time in `timezone` (an IANA name, given with it or kept on the post),
// resolved here across daylight-saving changes. A local time the zone skips or repeats is refused with both readings.
import { AppError, validationFailed } from '../../app/errors.ts';
import { knownZone } from '../../app/timezone.ts';
import { hasZone, localIso, resolveLocal } from '../../lib/timezone.ts';
import type { RuleIssue } from './posts.rules.ts';
import { parseTime } from './posts.writing.ts';

export interface Schedule {
  scheduleAt: Date | null;
  /** The zone to keep on the post: null when the schedule is absolute (or there is none and no zone was given). */
  timezone: string | null;
}

const zoneOf = (timezone: string) => knownZone(timezone, '/timezone');

/** The instant a wall-clock `schedule_at` names in `zone`; a skipped or repeated local time is a 422. */
export function resolveLocalSchedule(value: string, zone: string): Date {
  const resolved = resolveLocal(value, zone);
  switch (resolved.kind) {
    case 'exact':
      return resolved.instant;
    case 'invalid':
      throw new AppError('PUBLIC_API_BODY_INVALID', 'schedule_at is not a valid time.', {
        details: [{ path: '/schedule_at', message: 'is not a valid time' }],
      });
    case 'skipped':
      throw validationFailed([
        {
          platform: null,
          rule: 'local_time_skipped',
          path: '/schedule_at',
          message: `${value} does not exist in ${zone}: clocks jump from ${resolved.gapStart.slice(11)} to ${resolved.gapEnd.slice(11)} that day. Send it with an offset to choose: ${resolved.readings[0]} or ${resolved.readings[1]}.`,
        },
      ]);
    case 'repeated':
      throw validationFailed([
        {
          platform: null,
          rule: 'local_time_repeated',
          path: '/schedule_at',
          message: `${value} occurs twice in ${zone} (clocks go back that day): ${resolved.readings[0]} or ${resolved.readings[1]}. Send it with the offset you mean.`,
        },
      ]);
  }
}

/**
 * The schedule of a new post, or of an edit. `kept` is the zone stored on the post (edits only): a `schedule_at`
 * without an offset and without `timezone` is read in it.
 */
export function resolveSchedule(
  input: { scheduleAt: string | null | undefined; timezone: string | null | undefined },
  current: { scheduleAt: Date | null; timezone: string | null } = { scheduleAt: null, timezone: null },
): Schedule {
  const { scheduleAt, timezone } = input;
  if (scheduleAt === undefined) {
    if (timezone === undefined) return current;
    if (timezone === null) return { scheduleAt: current.scheduleAt, timezone: null };
    const zone = zoneOf(timezone);
    // A new zone for a post scheduled in a zone: the same wall-clock time, read in the new zone.
    if (current.scheduleAt !== null && current.timezone !== null) {
      const wall = localIso(current.scheduleAt.getTime(), current.timezone).slice(0, 19);
      return { scheduleAt: resolveLocalSchedule(wall, zone), timezone: zone };
    }
    if (current.scheduleAt !== null) {
      throw new AppError(
        'PUBLIC_API_BODY_INVALID',
        'This post is scheduled at an absolute time; send schedule_at without an offset together with timezone.',
        { details: [{ path: '/timezone', message: 'needs schedule_at without an offset' }] },
      );
    }
    return { scheduleAt: null, timezone: zone };
  }
  if (scheduleAt === null)
    return { scheduleAt: null, timezone: timezone ? zoneOf(timezone) : timezone === null ? null : current.timezone };
  if (hasZone(scheduleAt)) {
    if (timezone) {
      throw new AppError(
        'PUBLIC_API_BODY_INVALID',
        `schedule_at ${scheduleAt} carries its own offset and timezone is ${timezone}: send one of them (an offset for an absolute time, or a local time with timezone).`,
        {
          details: [
            { path: '/schedule_at', message: 'has an offset while timezone is set' },
            { path: '/timezone', message: 'is set while schedule_at has an offset' },
          ],
        },
      );
    }
    return { scheduleAt: parseTime(scheduleAt, '/schedule_at'), timezone: null };
  }
  const zone = timezone ? zoneOf(timezone) : timezone === null ? null : current.timezone;
  if (!zone) {
    throw new AppError(
      'PUBLIC_API_BODY_INVALID',
      `schedule_at ${scheduleAt} has no offset: add \`Z\` or an offset (e.g. ${scheduleAt}Z), or send timezone (an IANA name) to read it as a local time.`,
      { details: [{ path: '/schedule_at', message: 'needs Z, an offset, or timezone' }] },
    );
  }
  return { scheduleAt: resolveLocalSchedule(scheduleAt, zone), timezone: zone };
}

/**
 * As resolveSchedule, with a local time the zone skips or repeats returned as an issue rather than thrown, so
 * `POST /posts/validate` reports it beside the other rules (`valid: false`) and creation lists it with them.
 */
export function resolveScheduleWithIssues(input: {
  scheduleAt: string | null | undefined;
  timezone: string | null | undefined;
}): Schedule & { issues: RuleIssue[] } {
  try {
    return { ...resolveSchedule(input), issues: [] };
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'PUBLIC_API_VALIDATION_FAILED') throw error;
    const issues = (error.details ?? []).map((d) => ({
      platform: null,
      rule: d.rule ?? 'schedule_invalid',
      message: d.message,
      path: d.path ?? '/schedule_at',
    }));
    return { scheduleAt: null, timezone: null, issues };
  }
}

// The rules an automation must pass to be saved (docs/automations.md "Rules"), each a 422 detail naming its rule:
// which fields go with which source and generator type, the schedule, the feed URL through the SSRF guard, the
// destinations against the brand's connections, and the offline rule of `llm_topic`.
import type { ErrorDetail } from '../../app/errors.ts';
import type { Queryable } from '../../db/pool.ts';
import { OutboundBlockedError, type OutboundGuard } from '../../lib/ssrf.ts';
import { findConnection } from '../connections/connections.repo.ts';
import type {
  AutomationDestination,
  AutomationGenerator,
  AutomationOptions,
  AutomationOutput,
  AutomationSource,
} from './automations.schemas.ts';
import { nextOccurrence, normaliseRule, ScheduleError } from './schedule.ts';

export function rule(path: string, name: string, message: string): ErrorDetail {
  return { path, rule: name, message, platform: null };
}

const SOURCE_FIELDS: Record<AutomationSource['type'], readonly string[]> = {
  schedule: ['rrule', 'timezone'],
  rss: ['feed_url'],
  event: ['event'],
};
const GENERATOR_FIELDS: Record<AutomationGenerator['type'], readonly string[]> = {
  template: ['template', 'count'],
  library: ['items', 'count'],
  llm_topic: ['topic', 'items', 'count'],
  repurpose: ['format'],
};
/** Which generators read which source: a library or a topic is posted on a schedule; repurpose needs an item. */
const GENERATORS_OF: Record<AutomationSource['type'], readonly AutomationGenerator['type'][]> = {
  schedule: ['template', 'library', 'llm_topic'],
  rss: ['template', 'repurpose'],
  event: ['template', 'repurpose'],
};

function fieldsOf(
  value: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  what: string,
): ErrorDetail[] {
  return Object.keys(value)
    .filter((f) => f !== 'type' && !allowed.includes(f) && value[f] !== undefined)
    .map((f) => rule(`${path}/${f}`, `${path.slice(1)}_field_unexpected`, `${f} does not go with a ${what}.`));
}

/** Checks the source; a schedule's rule comes back in its stored form (with its DTSTART). */
export async function checkSource(
  guard: OutboundGuard,
  source: AutomationSource,
  now: Date,
): Promise<{ issues: ErrorDetail[]; source: AutomationSource }> {
  const issues = fieldsOf(source, SOURCE_FIELDS[source.type], '/source', `${source.type} source`);
  for (const field of SOURCE_FIELDS[source.type])
    if ((source as Record<string, unknown>)[field] === undefined)
      issues.push(rule(`/source/${field}`, 'source_field_required', `A ${source.type} source needs ${field}.`));
  if (issues.length > 0) return { issues, source };
  if (source.type === 'schedule') {
    try {
      const rrule = normaliseRule({ rrule: source.rrule!, timezone: source.timezone! }, now);
      if (nextOccurrence({ rrule, timezone: source.timezone! }, now) === null)
        return {
          issues: [rule('/source/rrule', 'rrule_ended', 'The rule has no occurrence after now (COUNT or UNTIL).')],
          source,
        };
      return { issues, source: { ...source, rrule } };
    } catch (error) {
      if (!(error instanceof ScheduleError)) throw error;
      const field = /time zone/.test(error.message) ? 'timezone' : 'rrule';
      const name = field === 'timezone' ? 'timezone_unknown' : 'rrule_invalid';
      return { issues: [rule(`/source/${field}`, name, error.message)], source };
    }
  }
  if (source.type === 'rss') {
    try {
      await guard.checkUrl(source.feed_url!);
    } catch (error) {
      if (!(error instanceof OutboundBlockedError)) throw error;
      const name = error.code.startsWith('url_') ? error.code : `url_${error.code}`;
      issues.push(rule('/source/feed_url', name, `The feed cannot be fetched: ${error.message}`));
    }
  }
  return { issues, source };
}

export function checkGenerator(
  generator: AutomationGenerator,
  source: AutomationSource,
  provider: string,
): ErrorDetail[] {
  const issues = fieldsOf(generator, GENERATOR_FIELDS[generator.type], '/generator', `${generator.type} generator`);
  if (!GENERATORS_OF[source.type].includes(generator.type))
    issues.push(
      rule(
        '/generator/type',
        'generator_source_mismatch',
        `A ${source.type} source takes a ${GENERATORS_OF[source.type].join(' or ')} generator, not ${generator.type}.`,
      ),
    );
  if (generator.type === 'template' && source.type === 'schedule' && generator.template === undefined)
    issues.push(rule('/generator/template', 'template_required', 'A scheduled template generator needs template.'));
  if (generator.type === 'library' && generator.items === undefined)
    issues.push(rule('/generator/items', 'items_required', 'A library generator needs items.'));
  if (generator.type === 'llm_topic') {
    if (generator.topic === undefined)
      issues.push(rule('/generator/topic', 'topic_required', 'An llm_topic generator needs topic.'));
    if (provider === 'deterministic' && generator.items === undefined)
      issues.push(
        rule(
          '/generator/type',
          'llm_topic_offline',
          'No text-generation provider is configured (HERALD_AI_PROVIDER is deterministic): an llm_topic generator needs generator.items, a library of texts it posts from until a provider is set.',
        ),
      );
  }
  return issues;
}

export async function checkDestinations(
  db: Queryable,
  workspaceId: string,
  brandId: string,
  destinations: AutomationDestination[],
): Promise<ErrorDetail[]> {
  const issues: ErrorDetail[] = [];
  for (const [i, d] of destinations.entries()) {
    if ((d.connection_id === undefined) === (d.platform === undefined)) {
      issues.push(
        rule(`/destinations/${i}`, 'destination_target_required', 'A destination names connection_id or platform.'),
      );
      continue;
    }
    if (d.connection_id !== undefined) {
      const connection = await findConnection(db, workspaceId, d.connection_id);
      if (!connection || connection.brand_id !== brandId)
        issues.push(
          rule(
            `/destinations/${i}/connection_id`,
            'connection_not_found',
            `No connection ${d.connection_id} in this automation's brand.`,
          ),
        );
    }
  }
  return issues;
}

export function checkOutputAndOptions(
  output: AutomationOutput,
  options: AutomationOptions,
  source: AutomationSource,
): ErrorDetail[] {
  const issues: ErrorDetail[] = [];
  if (output.schedule_expr !== undefined && output.mode !== 'schedule' && output.mode !== 'approval')
    issues.push(rule('/output/schedule_expr', 'schedule_expr_unexpected', `A ${output.mode} output is not scheduled.`));
  if (output.schedule_expr !== undefined && !/[1-9]/.test(output.schedule_expr))
    issues.push(rule('/output/schedule_expr', 'schedule_expr_empty', 'schedule_expr must be longer than zero.'));
  if (source.type !== 'rss') {
    // `false` is the default the schema fills into any `options` sent: only asking for a backfill is refused.
    if (options.backfill === true)
      issues.push(rule('/options/backfill', 'option_needs_feed', 'backfill applies to an rss source.'));
    if (options.use_item_image === true)
      issues.push(rule('/options/use_item_image', 'option_needs_feed', 'use_item_image needs feed items.'));
  }
  return issues;
}

// The source and generator parts of the automation form: which fields show follows the chosen types, so the body
// never carries a field the server would refuse.
import { useMemo } from 'react';
import { Options, Radios } from '../../ui.tsx';
import { EVENTS, GENERATORS_OF, SOURCE_TYPES, type FormState, type SourceType } from './model.ts';

export interface PartProps {
  form: FormState;
  set<K extends keyof FormState>(key: K, value: FormState[K]): void;
}

export function SourceFields({ form, set }: PartProps) {
  const zones = useMemo(() => Intl.supportedValuesOf('timeZone'), []);
  const pickSource = (type: SourceType) => {
    set('sourceType', type);
    // A generator the new source does not take falls back to the template, which every source takes.
    if (!GENERATORS_OF[type].some(([g]) => g === form.generatorType)) set('generatorType', 'template');
  };
  return (
    <fieldset className="stack">
      <legend>When it runs</legend>
      <Radios name="source-type" choices={SOURCE_TYPES} value={form.sourceType} onChange={pickSource} />
      {form.sourceType === 'schedule' ? (
        <div className="inline">
          <div className="field grow">
            <label htmlFor="automation-rrule">RRULE</label>
            <textarea
              id="automation-rrule"
              rows={2}
              required
              value={form.rrule}
              onChange={(e) => set('rrule', e.target.value)}
              aria-describedby="rrule-help"
              spellCheck={false}
            />
          </div>
          <label>
            Time zone
            <select value={form.timezone} onChange={(e) => set('timezone', e.target.value)}>
              <Options values={zones} />
            </select>
          </label>
          <p id="rrule-help" className="meta">
            An RFC 5545 rule such as <code>FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0</code>, read in the time zone; it
            starts now unless it has a <code>DTSTART</code> line.
          </p>
        </div>
      ) : null}
      {form.sourceType === 'rss' ? (
        <label>
          Feed URL
          <input
            type="url"
            required
            value={form.feedUrl}
            onChange={(e) => set('feedUrl', e.target.value)}
            placeholder="https://example.com/feed.xml"
          />
        </label>
      ) : null}
      {form.sourceType === 'event' ? (
        <label>
          Event
          <select value={form.event} onChange={(e) => set('event', e.target.value as FormState['event'])}>
            <Options values={EVENTS} />
          </select>
        </label>
      ) : null}
    </fieldset>
  );
}

export function GeneratorFields({ form, set }: PartProps) {
  const g = form.generatorType;
  return (
    <fieldset className="stack">
      <legend>What it writes</legend>
      <Radios
        name="generator-type"
        choices={GENERATORS_OF[form.sourceType]}
        value={g}
        onChange={(value) => set('generatorType', value)}
      />
      {g === 'template' ? (
        <label>
          Template
          <textarea
            rows={4}
            required={form.sourceType === 'schedule'}
            value={form.template}
            onChange={(e) => set('template', e.target.value)}
            aria-describedby="template-help"
          />
        </label>
      ) : null}
      {g === 'template' ? (
        <p id="template-help" className="meta">
          Placeholders: {'{{item.title}}'}, {'{{item.url}}'}, {'{{item.summary}}'}, {'{{item.author}}'}, {'{{date}}'},{' '}
          {'{{brand.name}}'}. Empty for a feed or an event: the item&apos;s title and link.
        </p>
      ) : null}
      {g === 'llm_topic' ? (
        <label>
          Topic
          <input required value={form.topic} onChange={(e) => set('topic', e.target.value)} />
        </label>
      ) : null}
      {g === 'library' || g === 'llm_topic' ? (
        <label>
          {g === 'library' ? 'Texts' : 'Texts to post while no model is configured'}
          <textarea
            rows={6}
            required={g === 'library'}
            value={form.items}
            onChange={(e) => set('items', e.target.value)}
            aria-describedby="items-help"
          />
        </label>
      ) : null}
      {g === 'library' || g === 'llm_topic' ? (
        <p id="items-help" className="meta">
          One text per block; leave a blank line between texts.
        </p>
      ) : null}
      {g === 'repurpose' ? (
        <label>
          Format
          <select value={form.format} onChange={(e) => set('format', e.target.value as FormState['format'])}>
            <option value="post">post</option>
            <option value="thread">thread</option>
          </select>
        </label>
      ) : null}
      {g !== 'repurpose' ? (
        <label className="narrow-field">
          Posts per run (empty: 1)
          <input type="number" min={1} value={form.count} onChange={(e) => set('count', e.target.value)} />
        </label>
      ) : null}
    </fieldset>
  );
}

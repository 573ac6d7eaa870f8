// The settings form's sections, in the order the brand context compiles them (docs/api.md "Brands").
import type { Draft, Rules } from './draft.ts';
import { ApplyRule, Choice, Section, Text, type Set } from './fields.tsx';
import { Documents, Examples, Memory } from './items.tsx';

type Props = { draft: Draft; set: Set };
const ONE_A_LINE = 'one a line';

export function Identity({ draft, set }: Props) {
  return (
    <Section title="Identity">
      <Text draft={draft} set={set} field="name" label="Name" hint="1–100 characters" />
      <Text draft={draft} set={set} field="slug" label="Slug" hint="a-z, 0-9 and single hyphens" />
      <Text draft={draft} set={set} field="website" label="Website" type="url" hint="http(s) address" />
      <Text draft={draft} set={set} field="industry" label="Industry" />
      <Text draft={draft} set={set} field="timezone" label="Time zone" hint="IANA zone, e.g. Europe/Paris" />
      <Text draft={draft} set={set} field="language" label="Language" hint="BCP 47 tag, e.g. en or pt-BR" />
      <Text draft={draft} set={set} field="colors" label="Colours" hint={`#rrggbb, ${ONE_A_LINE}`} lines={3} />
      <Text
        draft={draft}
        set={set}
        field="logo_media_id"
        label="Logo (media id)"
        hint="a ready image of this workspace"
      />
      <Text draft={draft} set={set} field="offer" label="Offer" hint="what the brand sells or offers" lines={3} />
    </Section>
  );
}

export function Voice({ draft, set }: Props) {
  return (
    <Section title="Voice">
      <Text
        draft={draft}
        set={set}
        field="descriptors"
        label="Voice descriptors"
        hint={`words for the voice, ${ONE_A_LINE}`}
        lines={3}
      />
      <Choice
        draft={draft}
        set={set}
        field="formality"
        label="Formality"
        options={[
          ['', 'no preference'],
          ['1', '1 (casual)'],
          ['2', '2'],
          ['3', '3'],
          ['4', '4'],
          ['5', '5 (formal)'],
        ]}
      />
      <Choice
        draft={draft}
        set={set}
        field="emoji"
        label="Emoji"
        options={[
          ['', 'no preference'],
          ['none', 'none'],
          ['light', 'light'],
          ['rich', 'rich'],
        ]}
      />
      <Choice
        draft={draft}
        set={set}
        field="hashtags"
        label="Hashtags in posts"
        options={[
          ['', 'no preference'],
          ['none', 'none'],
          ['few', 'few'],
          ['many', 'many'],
        ]}
      />
      <Text draft={draft} set={set} field="do" label="The voice does" hint={ONE_A_LINE} lines={3} />
      <Text draft={draft} set={set} field="dont" label="The voice never does" hint={ONE_A_LINE} lines={3} />
      <Examples draft={draft} set={set} />
    </Section>
  );
}

export function Audience({ draft, set }: Props) {
  return (
    <Section title="Audience and goals">
      <Text
        draft={draft}
        set={set}
        field="audience_summary"
        label="Audience"
        hint="who the brand writes for"
        lines={2}
      />
      <Text draft={draft} set={set} field="segments" label="Audience segments" hint={ONE_A_LINE} lines={3} />
      <Text draft={draft} set={set} field="goals" label="Goals" hint={ONE_A_LINE} lines={3} />
      <Text draft={draft} set={set} field="guidelines_md" label="Guidelines (Markdown)" lines={6} />
    </Section>
  );
}

export function Terms({ draft, set }: Props) {
  return (
    <Section title="Terms, hashtags, signature">
      <Text draft={draft} set={set} field="banned_terms" label="Banned terms" hint={ONE_A_LINE} lines={3} />
      <Text draft={draft} set={set} field="required_terms" label="Required terms" hint={ONE_A_LINE} lines={2} />
      <Text
        draft={draft}
        set={set}
        field="default_hashtags"
        label="Default hashtags"
        hint="each starting with #, separated by spaces"
      />
      <Text draft={draft} set={set} field="signature" label="Signature" hint="up to 200 characters" />
      <Text draft={draft} set={set} field="cta_default" label="Call to action" hint="up to 200 characters" />
    </Section>
  );
}

export function RulesSection({ draft, set }: Props) {
  const rules = draft.rules;
  const setRule = <K extends keyof Rules>(key: K, value: Rules[K]) => set('rules', { ...rules, [key]: value });
  return (
    <Section title="Rules on posts">
      <label>
        A banned term in a post
        <select
          value={rules.banned_terms.severity}
          onChange={(e) => setRule('banned_terms', { severity: e.target.value as Rules['banned_terms']['severity'] })}
        >
          <option value="warning">is a warning (the post is created)</option>
          <option value="error">refuses the post</option>
        </select>
      </label>
      <ApplyRule
        label="Required terms are checked"
        value={rules.required_terms}
        onChange={(v) => setRule('required_terms', { ...rules.required_terms, ...v })}
      />
      <label>
        A required term missing from a post
        <select
          value={rules.required_terms.when_missing}
          onChange={(e) =>
            setRule('required_terms', {
              ...rules.required_terms,
              when_missing: e.target.value as Rules['required_terms']['when_missing'],
            })
          }
        >
          <option value="warning">is a warning</option>
          <option value="error">refuses the post</option>
          <option value="append">is appended</option>
        </select>
      </label>
      <ApplyRule label="The signature is appended" value={rules.signature} onChange={(v) => setRule('signature', v)} />
      <ApplyRule label="The call to action is appended" value={rules.cta} onChange={(v) => setRule('cta', v)} />
      <ApplyRule
        label="Missing default hashtags are appended"
        value={rules.default_hashtags}
        onChange={(v) => setRule('default_hashtags', v)}
      />
    </Section>
  );
}

export function Knowledge({ draft, set }: Props) {
  return (
    <Section title="Memory and documents">
      <Memory draft={draft} set={set} />
      <Documents draft={draft} set={set} />
    </Section>
  );
}

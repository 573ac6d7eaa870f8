// The fieldsets of the automation form: scope, trigger, conditions, actions and guardrails, each a labelled group.
import type { Dispatch, SetStateAction } from 'react';
import { Options } from '../../ui.tsx';
import {
  ACTION_TYPES,
  ACTION_WORDS,
  INTENTS,
  LANGUAGES,
  MATCHES,
  newAction,
  type ActionState,
  type ActionType,
  type FormState,
  type TriggerType,
} from './automation-model.ts';
import { KIND_WORDS, KINDS, type Connection, type Member, Field } from './shared.tsx';

export type SetForm = Dispatch<SetStateAction<FormState>>;

function toggle<T>(all: T[], value: T, on: boolean): T[] {
  return on ? [...all, value] : all.filter((x) => x !== value);
}

function Checks<T extends string>({
  legend,
  options,
  words,
  picked,
  onChange,
  hint,
}: {
  legend: string;
  options: T[];
  words?: (value: T) => string;
  picked: T[];
  onChange(next: T[]): void;
  hint?: string;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {hint ? <p className="meta">{hint}</p> : null}
      <div className="inbox-checks">
        {options.map((o) => (
          <label key={o} className="check">
            <input
              type="checkbox"
              checked={picked.includes(o)}
              onChange={(e) => onChange(toggle(picked, o, e.target.checked))}
            />
            <span>{words ? words(o) : o}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function ScopeFields({ form, set, connections }: { form: FormState; set: SetForm; connections: Connection[] }) {
  const byId = new Map(connections.map((c) => [c.id, c]));
  return (
    <fieldset className="stack">
      <legend>Scope</legend>
      <Checks
        legend="Accounts"
        hint="None ticked: every account."
        options={connections.map((c) => c.id)}
        words={(id) => `${byId.get(id)?.platform ?? ''} ${byId.get(id)?.handle ?? id}`}
        picked={form.connectionIds}
        onChange={(connectionIds) => set((f) => ({ ...f, connectionIds }))}
      />
      <Checks
        legend="Kinds"
        hint="None ticked: every kind."
        options={KINDS}
        words={(k) => KIND_WORDS[k]}
        picked={form.kinds}
        onChange={(kinds) => set((f) => ({ ...f, kinds }))}
      />
      <label>
        Only on these Herald posts (post ids, comma separated; empty: any post)
        <input value={form.postIds} onChange={(e) => set((f) => ({ ...f, postIds: e.target.value }))} />
      </label>
    </fieldset>
  );
}

export function TriggerFields({ form, set }: { form: FormState; set: SetForm }) {
  return (
    <fieldset className="stack">
      <legend>Trigger</legend>
      <Field label="When">
        {(id) => (
          <select
            id={id}
            value={form.triggerType}
            onChange={(e) => set((f) => ({ ...f, triggerType: e.target.value as TriggerType }))}
          >
            <option value="keyword">a keyword matches</option>
            <option value="intent">an intent is detected</option>
            <option value="any">any message (catch-all, after the others)</option>
          </select>
        )}
      </Field>
      {form.triggerType === 'keyword' ? (
        <div className="inline">
          <label className="inbox-grow">
            Keywords (comma separated)
            <input required value={form.keywords} onChange={(e) => set((f) => ({ ...f, keywords: e.target.value }))} />
          </label>
          <Field label="Match">
            {(id) => (
              <select
                id={id}
                value={form.match}
                onChange={(e) => set((f) => ({ ...f, match: e.target.value as FormState['match'] }))}
              >
                <Options values={MATCHES} />
              </select>
            )}
          </Field>
        </div>
      ) : null}
      {form.triggerType === 'intent' ? (
        <Checks
          legend="Intents"
          hint="Detected by rules: a question mark or question word, and word lists for the others."
          options={INTENTS}
          picked={form.intents}
          onChange={(intents) => set((f) => ({ ...f, intents }))}
        />
      ) : null}
    </fieldset>
  );
}

export function ConditionFields({ form, set }: { form: FormState; set: SetForm }) {
  return (
    <fieldset className="stack">
      <legend>Conditions</legend>
      <label className="check">
        <input
          type="checkbox"
          checked={form.firstOnly}
          onChange={(e) => set((f) => ({ ...f, firstOnly: e.target.checked }))}
        />
        <span>Only the author’s first message on this account</span>
      </label>
      <Checks
        legend="Languages"
        hint="None ticked: any language. Undetermined text does not match a language."
        options={LANGUAGES}
        picked={form.languages}
        onChange={(languages) => set((f) => ({ ...f, languages }))}
      />
    </fieldset>
  );
}

function ActionRow({
  action,
  index,
  members,
  change,
  remove,
}: {
  action: ActionState;
  index: number;
  members: Member[];
  change(next: ActionState): void;
  remove?: () => void;
}) {
  const n = index + 1;
  return (
    <li className="card stack">
      <div className="inline">
        <Field label={<>Action {n}</>} className="inbox-grow">
          {(id) => (
            <select id={id} value={action.type} onChange={(e) => change(newAction(e.target.value as ActionType))}>
              {ACTION_TYPES.map((t) => (
                <option key={t} value={t}>
                  {ACTION_WORDS[t]}
                </option>
              ))}
            </select>
          )}
        </Field>
        {remove ? (
          <button type="button" className="secondary small" onClick={remove}>
            Remove action {n}
          </button>
        ) : null}
      </div>
      {action.type === 'assign' ? (
        <Field label={<>Assignee of action {n}</>}>
          {(id) => (
            <select
              id={id}
              required
              value={action.assigneeId}
              onChange={(e) => change({ ...action, assigneeId: e.target.value })}
            >
              <option value="">pick a member</option>
              {members.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.user.name ?? m.user.email}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : action.type === 'label' ? (
        <label>
          Labels of action {n} (comma separated)
          <input required value={action.labels} onChange={(e) => change({ ...action, labels: e.target.value })} />
        </label>
      ) : (
        <label>
          {action.type === 'webhook' ? 'Payload' : 'Reply'} template of action {n}
          <textarea
            required
            rows={2}
            value={action.template}
            onChange={(e) => change({ ...action, template: e.target.value })}
          />
        </label>
      )}
    </li>
  );
}

export function ActionFields({ form, set, members }: { form: FormState; set: SetForm; members: Member[] }) {
  const change = (i: number, next: ActionState) =>
    set((f) => ({ ...f, actions: f.actions.map((a, j) => (j === i ? next : a)) }));
  return (
    <fieldset className="stack">
      <legend>Actions</legend>
      <p className="meta">
        Templates take <code>{'{{author}}'}</code>, <code>{'{{author.username}}'}</code>,{' '}
        <code>{'{{author.display_name}}'}</code>, <code>{'{{keyword}}'}</code>, <code>{'{{platform}}'}</code> and{' '}
        <code>{'{{brand.name}}'}</code>, <code>{'{{brand.website}}'}</code>, <code>{'{{brand.signature}}'}</code>,{' '}
        <code>{'{{brand.cta}}'}</code>, <code>{'{{brand.hashtags}}'}</code>.
      </p>
      <ol className="list inbox-actions-list">
        {form.actions.map((a, i) => (
          <ActionRow
            key={i}
            action={a}
            index={i}
            members={members}
            change={(next) => change(i, next)}
            remove={
              form.actions.length > 1
                ? () => set((f) => ({ ...f, actions: f.actions.filter((_, j) => j !== i) }))
                : undefined
            }
          />
        ))}
      </ol>
      <div>
        <button
          type="button"
          className="secondary small"
          onClick={() => set((f) => ({ ...f, actions: [...f.actions, newAction('label')] }))}
        >
          Add an action
        </button>
      </div>
      <fieldset>
        <legend>Replies</legend>
        {(['auto', 'approval'] as const).map((mode) => (
          <label key={mode} className="check">
            <input
              type="radio"
              name="response_mode"
              checked={form.responseMode === mode}
              onChange={() => set((f) => ({ ...f, responseMode: mode }))}
            />
            <span>{mode === 'auto' ? 'Send at once' : 'Wait for approval (an approval item per reply)'}</span>
          </label>
        ))}
      </fieldset>
    </fieldset>
  );
}

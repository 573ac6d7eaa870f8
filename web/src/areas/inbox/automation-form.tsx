// Creating or changing an inbox automation (POST /v1/inbox/automations, PATCH /v1/inbox/automations/{id}): every
// field docs/inbox.md "Automations" defines, with the members and accounts read from the API.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ErrorNote, loadedFor, PageTitle, Ready, useAction, useApp, useLoad } from '../../ui.tsx';
import { ActionFields, ConditionFields, ScopeFields, TriggerFields, type SetForm } from './automation-fields.tsx';
import { emptyForm, fromAutomation, toBody, type FormState } from './automation-model.ts';
import { refusedRule, ruleInWords, useConnections, useMembers, type Connection, type Member } from './shared.tsx';

function GuardrailFields({ form, set }: { form: FormState; set: SetForm }) {
  return (
    <fieldset className="stack">
      <legend>Guardrails</legend>
      <div className="inline">
        <label>
          Answer one author at most once every (minutes; 0: no limit)
          <input
            type="number"
            min={0}
            required
            value={form.dedupMinutes}
            onChange={(e) => set((f) => ({ ...f, dedupMinutes: e.target.value }))}
          />
        </label>
        <label>
          Daily cap of answers (empty: none)
          <input
            type="number"
            min={1}
            value={form.dailyCap}
            onChange={(e) => set((f) => ({ ...f, dailyCap: e.target.value }))}
          />
        </label>
      </div>
      <label>
        Blocked terms (comma separated; in the message or the reply, nothing is sent)
        <input value={form.blockedTerms} onChange={(e) => set((f) => ({ ...f, blockedTerms: e.target.value }))} />
      </label>
      <label className="check">
        <input type="checkbox" checked={form.quiet} onChange={(e) => set((f) => ({ ...f, quiet: e.target.checked }))} />
        <span>Quiet hours: hold replies until they end</span>
      </label>
      {form.quiet ? (
        <div className="inline">
          <label>
            From
            <input
              type="time"
              required
              value={form.quietStart}
              onChange={(e) => set((f) => ({ ...f, quietStart: e.target.value }))}
            />
          </label>
          <label>
            Until
            <input
              type="time"
              required
              value={form.quietEnd}
              onChange={(e) => set((f) => ({ ...f, quietEnd: e.target.value }))}
            />
          </label>
          <label>
            Time zone (IANA)
            <input
              required
              value={form.quietZone}
              onChange={(e) => set((f) => ({ ...f, quietZone: e.target.value }))}
            />
          </label>
        </div>
      ) : null}
      <label>
        Active until (empty: no end)
        <input
          type="datetime-local"
          value={form.activeUntil}
          onChange={(e) => set((f) => ({ ...f, activeUntil: e.target.value }))}
        />
      </label>
    </fieldset>
  );
}

function AutomationForm({
  id,
  title,
  initial,
  members,
  connections,
}: {
  id: string | undefined;
  title: string;
  initial: FormState;
  members: Member[];
  connections: Connection[];
}) {
  const { herald } = useApp();
  const navigate = useNavigate();
  const [form, setForm] = useState<FormState>(initial);
  const save = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body = toBody(form);
    const saved = await save.run(() =>
      id
        ? herald.PATCH('/inbox/automations/{id}', { params: { path: { id } }, body })
        : herald.POST('/inbox/automations', { body }),
    );
    if (saved) void navigate('/inbox/automations');
  };
  const rule = ruleInWords(refusedRule(save.error));
  return (
    <form className="stack inbox-automation-form" aria-label={title} onSubmit={(e) => void submit(e)}>
      <div className="inline">
        <label className="inbox-grow">
          Name
          <input required value={form.name} onChange={(e) => setForm((f) => ({ ...f, name: e.target.value }))} />
        </label>
        <label>
          Position (lowest first; empty: last)
          <input
            type="number"
            min={0}
            value={form.position}
            onChange={(e) => setForm((f) => ({ ...f, position: e.target.value }))}
          />
        </label>
      </div>
      <label className="check">
        <input
          type="checkbox"
          checked={form.enabled}
          onChange={(e) => setForm((f) => ({ ...f, enabled: e.target.checked }))}
        />
        <span>Enabled</span>
      </label>
      <TriggerFields form={form} set={setForm} />
      <ScopeFields form={form} set={setForm} connections={connections} />
      <ConditionFields form={form} set={setForm} />
      <ActionFields form={form} set={setForm} members={members} />
      <GuardrailFields form={form} set={setForm} />
      {rule ? <p className="error-inline">{rule}</p> : null}
      <ErrorNote error={save.error} />
      <div className="actions">
        <button type="submit" disabled={save.busy}>
          {id ? 'Save the automation' : 'Create the automation'}
        </button>
        <Link to="/inbox/automations">Cancel</Link>
      </div>
    </form>
  );
}

export function AutomationFormPage() {
  const { id } = useParams();
  const { herald } = useApp();
  const members = useMembers();
  const connections = useConnections();
  // The new and edit routes share this component: the form waits for the answer that is for this id.
  const existing = loadedFor(
    useLoad(
      () => (id ? herald.GET('/inbox/automations/{id}', { params: { path: { id } } }) : Promise.resolve(null)),
      [herald, id],
    ),
    id,
  );
  const title = id ? `Edit the automation ${existing.data?.name ?? ''}`.trim() : 'New inbox automation';
  return (
    <>
      <p>
        <Link to="/inbox/automations">← Inbox automations</Link>
      </p>
      <PageTitle>{title}</PageTitle>
      {/* The member and account lists may be refused to a member: the form then offers none, and says why. */}
      <ErrorNote error={members.error ?? connections.error} />
      <Ready loads={[existing, members, connections]} what="the automation">
        {existing.error ? (
          <ErrorNote error={existing.error} />
        ) : (
          <AutomationForm
            key={id ?? 'new'}
            id={id}
            title={title}
            initial={existing.data ? fromAutomation(existing.data) : emptyForm()}
            members={members.data ?? []}
            connections={connections.data ?? []}
          />
        )}
      </Ready>
    </>
  );
}

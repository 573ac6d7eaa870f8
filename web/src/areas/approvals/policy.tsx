// The workspace's approval policy (GET/PATCH /v1/approvals/policy): each option with the sentence that explains it,
// saved with the `version` the page read, so a change someone made meanwhile is a visible conflict, not overwritten.
// Per-brand overrides are listed and can be removed. Only owners and admins may change it.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import type { components } from '@herald/client';
import { describeError, HeraldError } from '../../api.ts';
import { ErrorNote, formatTime, PageTitle, Show, useAction, useApp, useLoad } from '../../ui.tsx';
import * as text from './policy-text.ts';
import { brandName, SOURCES, type Policy } from './shared.tsx';
import './approvals.css';

type UpdatePolicy = components['schemas']['UpdateApprovalPolicyRequest'];

type Draft = Pick<
  Policy,
  'mode' | 'sources' | 'approver_roles' | 'allow_self_approval' | 'on_expire' | 'require_reject_reason'
> & { expireMinutes: string };

function draftOf(p: Policy): Draft {
  return {
    mode: p.mode,
    sources: p.sources,
    approver_roles: p.approver_roles,
    allow_self_approval: p.allow_self_approval,
    on_expire: p.on_expire,
    require_reject_reason: p.require_reject_reason,
    expireMinutes: p.expire_after === null ? '' : String(Math.round(p.expire_after / 60)),
  };
}

function PolicyConflict({ error }: { error: unknown }) {
  const { message, code, requestId } = describeError(error);
  return (
    <div className="error" role="alert" data-testid="policy-conflict">
      <p>
        <strong>Not saved: someone changed the policy since you opened this page.</strong> The form now shows the policy
        as it is; look at it again and save your change.
      </p>
      <p>{message}</p>
      <p className="meta">
        Code <code>{code}</code>
        {requestId ? ` · request ${requestId}` : ''}
      </p>
    </div>
  );
}

function toggle<T>(list: T[], value: T, on: boolean): T[] {
  return on ? [...list.filter((x) => x !== value), value] : list.filter((x) => x !== value);
}

function Overrides({ policy, disabled, onRemove }: { policy: Policy; disabled: boolean; onRemove(id: string): void }) {
  const { workspace } = useApp();
  const entries = Object.entries(policy.brand_overrides);
  return (
    <section aria-labelledby="overrides-heading">
      <h2 id="overrides-heading">Brand overrides</h2>
      <p className="meta">A brand may differ from the workspace on any field; its other fields follow the workspace.</p>
      {entries.length === 0 ? (
        <p className="empty">No brand overrides: every brand follows the policy above.</p>
      ) : (
        <ul className="list">
          {entries.map(([brandId, fields]) => (
            <li key={brandId}>
              <strong>{brandName(workspace?.brands, brandId)}</strong>
              <code>{JSON.stringify(fields)}</code>
              <button type="button" className="secondary small" disabled={disabled} onClick={() => onRemove(brandId)}>
                Remove the override of {brandName(workspace?.brands, brandId)}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function PolicyForm({
  policy,
  onSaved,
  onConflict,
}: {
  policy: Policy;
  onSaved(): void;
  onConflict(error: unknown): void;
}) {
  const { herald, workspace } = useApp();
  const [draft, setDraft] = useState<Draft>(() => draftOf(policy));
  const save = useAction();
  const mayEdit = workspace?.role === 'owner' || workspace?.role === 'admin';
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const patch = async (body: Omit<UpdatePolicy, 'version'>) => {
    let conflict: unknown;
    const done = await save.run(async () => {
      try {
        return await herald.PATCH('/approvals/policy', { body: { version: policy.version, ...body } });
      } catch (error) {
        if (!(error instanceof HeraldError && error.code === 'PUBLIC_API_VERSION_CONFLICT')) throw error;
        conflict = error;
        return undefined;
      }
    });
    if (conflict) onConflict(conflict);
    else if (done) onSaved();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const minutes = draft.expireMinutes.trim();
    void patch({
      mode: draft.mode,
      sources: draft.sources,
      approver_roles: draft.approver_roles,
      allow_self_approval: draft.allow_self_approval,
      on_expire: draft.on_expire,
      require_reject_reason: draft.require_reject_reason,
      expire_after: minutes === '' ? null : Number(minutes) * 60,
    });
  };

  return (
    <>
      {!mayEdit ? (
        <p className="warning">Only owners and admins may change the approval policy; you can read it.</p>
      ) : null}
      <ErrorNote error={save.error} />
      <form className="stack policy" onSubmit={submit} aria-label="Approval policy">
        <fieldset disabled={!mayEdit}>
          <legend>Who waits for a review</legend>
          {text.MODES.map(([mode, label, sentence]) => (
            <label key={mode} className="check">
              <input type="radio" name="mode" checked={draft.mode === mode} onChange={() => set('mode', mode)} />
              <span>
                <strong>{label}</strong>: {sentence}
              </span>
            </label>
          ))}
        </fieldset>
        <fieldset disabled={!mayEdit}>
          <legend>Sources</legend>
          <p className="meta">{text.SOURCES_TEXT}</p>
          {SOURCES.map((s) => (
            <label key={s} className="check">
              <input
                type="checkbox"
                checked={draft.sources.includes(s)}
                onChange={(e) => set('sources', toggle(draft.sources, s, e.target.checked))}
              />
              <span>
                <strong>{s}</strong>: {text.SOURCE_TEXT[s]}
              </span>
            </label>
          ))}
        </fieldset>
        <fieldset disabled={!mayEdit}>
          <legend>Approvers</legend>
          <p className="meta">{text.ROLES_TEXT}</p>
          {(['owner', 'admin'] as const).map((r) => (
            <label key={r} className="check">
              <input
                type="checkbox"
                checked={draft.approver_roles.includes(r)}
                onChange={(e) => set('approver_roles', toggle(draft.approver_roles, r, e.target.checked))}
              />
              <span>
                <strong>{r}</strong>: {text.ROLE_TEXT[r]}
              </span>
            </label>
          ))}
          <label className="check">
            <input
              type="checkbox"
              checked={draft.allow_self_approval}
              onChange={(e) => set('allow_self_approval', e.target.checked)}
            />
            <span>
              <strong>Allow self-approval</strong>: {text.SELF_APPROVAL_TEXT}
            </span>
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={draft.require_reject_reason}
              onChange={(e) => set('require_reject_reason', e.target.checked)}
            />
            <span>
              <strong>Require a reason to reject</strong>: {text.REASON_TEXT}
            </span>
          </label>
        </fieldset>
        <fieldset disabled={!mayEdit}>
          <legend>Expiry</legend>
          <label>
            Expire after (minutes)
            <input
              type="number"
              min={1}
              max={129600}
              step={1}
              inputMode="numeric"
              value={draft.expireMinutes}
              aria-describedby="expiry-help"
              onChange={(e) => set('expireMinutes', e.target.value)}
            />
          </label>
          <p className="meta" id="expiry-help">
            {text.EXPIRY_TEXT}
          </p>
          {(['to_draft', 'cancel'] as const).map((a) => (
            <label key={a} className="check">
              <input
                type="radio"
                name="on_expire"
                checked={draft.on_expire === a}
                onChange={() => set('on_expire', a)}
              />
              <span>{text.ON_EXPIRE_TEXT[a]}</span>
            </label>
          ))}
        </fieldset>
        <div className="actions">
          <button type="submit" disabled={!mayEdit || save.busy}>
            {save.busy ? 'Saving…' : 'Save the policy'}
          </button>
        </div>
      </form>
      <Overrides
        policy={policy}
        disabled={!mayEdit || save.busy}
        onRemove={(brandId) => void patch({ brand_overrides: { [brandId]: null } })}
      />
    </>
  );
}

export function PolicyPage() {
  const { herald } = useApp();
  const policy = useLoad(() => herald.GET('/approvals/policy'), [herald]);
  // Kept outside the form, which starts again from what the server has after a save or a conflict.
  const [round, setRound] = useState(0);
  const [notice, setNotice] = useState<{ saved: true } | { conflict: unknown } | undefined>();
  const again = (next: typeof notice) => {
    setNotice(next);
    setRound((r) => r + 1);
    policy.reload();
  };
  return (
    <>
      <p>
        <Link to="/approvals">← The review queue</Link>
      </p>
      <PageTitle>Approval policy</PageTitle>
      <div role="status" className="policy-notice">
        {notice && 'saved' in notice ? <p className="ok-note">Saved.</p> : null}
      </div>
      {notice && 'conflict' in notice ? <PolicyConflict error={notice.conflict} /> : null}
      <Show loaded={policy} what="the approval policy">
        {(p) => (
          <>
            <p className="meta">
              Version {p.version}
              {p.updated_at ? `, changed ${formatTime(p.updated_at)}` : ', never changed: these are the defaults'}.
            </p>
            <PolicyForm
              key={`${p.version}-${round}`}
              policy={p}
              onSaved={() => again({ saved: true })}
              onConflict={(error) => again({ conflict: error })}
            />
          </>
        )}
      </Show>
    </>
  );
}

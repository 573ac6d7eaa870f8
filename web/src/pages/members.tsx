// Account settings → Members: the workspace's members and their roles, and invites (a single-use link, shown
// once; emailed to the invitee too when the server has SMTP). Needs members:manage; a member's role shows the refusal
// in words.
import { useState, type FormEvent } from 'react';
import {
  Confirm,
  CopyField,
  ErrorNote,
  formatTime,
  PageTitle,
  Ready,
  Show,
  useAction,
  useApp,
  useLoad,
} from '../ui.tsx';

type Role = 'owner' | 'admin' | 'member';
const ROLES: Role[] = ['owner', 'admin', 'member'];

interface Member {
  id: string;
  user: { id: string; email: string; name: string | null };
  role: Role;
  created_at: string;
}

interface Invite {
  id: string;
  email: string;
  role: Role;
  status?: 'pending' | 'accepted' | 'expired';
  expires_at: string;
  url?: string;
  /** Only in the answer that made the invite. */
  email_delivery?: { status: 'sent' | 'failed' | 'not_configured'; error: string | null };
}

export function MembersPage() {
  const { herald, me } = useApp();
  const calls = herald;
  const members = useLoad(async () => (await calls.GET('/members')) as { items: Member[] }, [herald]);
  const invites = useLoad(async () => (await calls.GET('/invites')) as { items: Invite[] }, [herald]);
  const change = useAction();
  const invite = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [link, setLink] = useState<Invite | undefined>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const made = (await invite.run(() => calls.POST('/invites', { body: { email, role } }))) as Invite | undefined;
    if (made) {
      setLink(made);
      setEmail('');
      invites.reload();
    }
  };

  return (
    <>
      <PageTitle>Members</PageTitle>
      <Ready loads={[members, invites]} what="members and invites">
        <section aria-labelledby="members-title">
          <h2 id="members-title">People in this workspace</h2>
          <ErrorNote error={change.error} />
          <Show loaded={members} what="members" empty={(d) => d.items.length === 0}>
            {(data) => (
              <div className="table-wrap">
                <table>
                  <caption className="sr-only">Members and their roles</caption>
                  <thead>
                    <tr>
                      <th scope="col">Person</th>
                      <th scope="col">Role</th>
                      <th scope="col">Since</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((m) => (
                      <tr key={m.id}>
                        <th scope="row">
                          {m.user.name ?? m.user.email}
                          <span className="meta"> {m.user.email}</span>
                        </th>
                        <td>
                          <select
                            aria-label={`Role of ${m.user.email}`}
                            value={m.role}
                            disabled={m.user.id === me.user.id}
                            onChange={async (e) => {
                              await change.run(() =>
                                calls.PATCH('/members/{id}', {
                                  params: { path: { id: m.id } },
                                  body: { role: e.target.value as Role },
                                }),
                              );
                              members.reload();
                            }}
                          >
                            {ROLES.map((r) => (
                              <option key={r} value={r}>
                                {r}
                              </option>
                            ))}
                          </select>
                        </td>
                        <td>{formatTime(m.created_at)}</td>
                        <td>
                          {m.user.id === me.user.id ? (
                            <span className="meta">you</span>
                          ) : (
                            <Confirm
                              label="Remove"
                              title={`Remove ${m.user.email}?`}
                              description="They lose access to this workspace at once, and their keys stop reaching it."
                              action="Remove"
                              onConfirm={async () => {
                                await change.run(() =>
                                  calls.DELETE('/members/{id}', { params: { path: { id: m.id } } }),
                                );
                                members.reload();
                              }}
                            />
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Show>
        </section>

        <section aria-labelledby="invites-title">
          <h2 id="invites-title">Invites</h2>
          <form className="card inline" onSubmit={(event) => void submit(event)} aria-label="Invite someone">
            <label>
              Email
              <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
            </label>
            <label>
              Role
              <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" disabled={invite.busy}>
              Invite
            </button>
          </form>
          <ErrorNote error={invite.error} />
          {link?.url ? (
            <section className="secret-once" aria-label="Invite link">
              {link.email_delivery?.status === 'sent' ? <p role="status">Emailed to {link.email}.</p> : null}
              {link.email_delivery?.status === 'failed' ? (
                <p role="status">
                  The email could not be sent: {link.email_delivery.error?.replace(/\.$/, '')}. Pass the link on
                  yourself.
                </p>
              ) : null}
              <p className="warning">
                {link.email_delivery?.status === 'sent'
                  ? 'This single-use link is yours too, in case the email does not arrive.'
                  : `Send this single-use link to ${link.email}.`}{' '}
                It is shown only now; it expires {formatTime(link.expires_at)}.
              </p>
              <CopyField label="invite link" value={link.url} />
              <button type="button" onClick={() => setLink(undefined)}>
                Done
              </button>
            </section>
          ) : null}
          <Show loaded={invites} what="open invites" empty={(d) => d.items.length === 0}>
            {(data) => (
              <ul className="list">
                {data.items.map((i) => (
                  <li key={i.id}>
                    <span>
                      {i.email} as <strong>{i.role}</strong>, {i.status ?? 'pending'}, expires{' '}
                      {formatTime(i.expires_at)}
                    </span>
                    <Confirm
                      label="Withdraw"
                      title={`Withdraw the invite to ${i.email}?`}
                      description="The link stops working at once."
                      action="Withdraw"
                      onConfirm={async () => {
                        await change.run(() => calls.DELETE('/invites/{id}', { params: { path: { id: i.id } } }));
                        invites.reload();
                      }}
                    />
                  </li>
                ))}
              </ul>
            )}
          </Show>
        </section>
      </Ready>
    </>
  );
}

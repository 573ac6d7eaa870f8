// An invite link (/app/invite/{token}): the invited person sees the workspace and role, then picks a name and a
// password (or gives their existing password when the email already has an account) and is signed in.
import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import { acceptInvite, inviteInfo, type Session } from '../api.ts';
import { ErrorNote, PageTitle, Show, useAction, useLoad } from '../ui.tsx';

export function InvitePage({ onSignedIn }: { onSignedIn(session: Session): void }) {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const invite = useLoad(() => inviteInfo(token), [token]);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const existing = invite.data?.has_account === true;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const session = await run(() => acceptInvite(token, existing ? undefined : name, password));
    if (session) {
      onSignedIn(session);
      void navigate('/posts', { replace: true });
    }
  };
  return (
    <main id="main" className="narrow">
      <PageTitle>Join a Herald workspace</PageTitle>
      <Show loaded={invite} what="the invite">
        {(info) => (
          <>
            <p>
              {info.email} is invited to <strong>{info.workspace.name}</strong> as <strong>{info.role}</strong>.
            </p>
            <form onSubmit={(event) => void submit(event)} className="stack">
              {existing ? null : (
                <label>
                  Your name
                  <input autoComplete="name" required value={name} onChange={(e) => setName(e.target.value)} />
                </label>
              )}
              <label>
                {existing ? 'Your password' : 'Password (at least 12 characters)'}
                <input
                  type="password"
                  autoComplete={existing ? 'current-password' : 'new-password'}
                  required
                  minLength={existing ? undefined : 12}
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                />
              </label>
              <ErrorNote error={error} />
              <button type="submit" disabled={busy}>
                Accept the invite
              </button>
            </form>
          </>
        )}
      </Show>
    </main>
  );
}

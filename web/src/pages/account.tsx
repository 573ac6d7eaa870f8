// The signed-in person's account: password change and signing out every session (POST /v1/me/…).
import { useState, type FormEvent } from 'react';
import { ErrorNote, PageTitle, useAction, useApp } from '../ui.tsx';

export function AccountPage() {
  const { me, herald, signOut } = useApp();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const change = useAction();
  const everywhere = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    const ok = await change.run(() =>
      herald.POST('/me/password', { body: { current_password: current, new_password: next } }),
    );
    if (ok !== undefined) {
      setDone(true);
      setCurrent('');
      setNext('');
    }
  };
  return (
    <>
      <PageTitle>Account</PageTitle>
      <p>
        Signed in as <strong>{me.user.email}</strong>
        {me.user.name ? ` (${me.user.name})` : ''}.
      </p>
      <section aria-labelledby="password-title">
        <h2 id="password-title">Change your password</h2>
        <form className="stack" onSubmit={(event) => void submit(event)}>
          <label>
            Current password
            <input
              type="password"
              autoComplete="current-password"
              required
              value={current}
              onChange={(e) => setCurrent(e.target.value)}
            />
          </label>
          <label>
            New password
            <input
              type="password"
              autoComplete="new-password"
              required
              minLength={12}
              value={next}
              onChange={(e) => setNext(e.target.value)}
            />
          </label>
          <ErrorNote error={change.error} />
          {done ? <p role="status">Your password was changed.</p> : null}
          <button type="submit" disabled={change.busy}>
            Change password
          </button>
        </form>
      </section>
      <section aria-labelledby="sessions-title">
        <h2 id="sessions-title">Sessions</h2>
        <p>Signs out every browser where you are signed in, this one included. API keys keep working.</p>
        <ErrorNote error={everywhere.error} />
        <button
          type="button"
          className="secondary"
          onClick={() =>
            void everywhere.run(async () => {
              await herald.POST('/me/sign-out-everywhere');
              await signOut().catch(() => undefined);
            })
          }
        >
          Sign out everywhere
        </button>
      </section>
    </>
  );
}

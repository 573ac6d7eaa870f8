// Sign-in with the accounts MCP sign-in uses (POST /app/api/session); throttled by the server.
import { useState, type FormEvent } from 'react';
import { signIn, type Session } from '../api.ts';
import { ErrorNote, PageTitle, useAction } from '../ui.tsx';

export function SignInPage({ onSignedIn }: { onSignedIn(session: Session): void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const session = await run(() => signIn(email, password));
    if (session) onSignedIn(session);
  };
  return (
    <main id="main" className="narrow">
      <PageTitle>Sign in to Herald</PageTitle>
      <form onSubmit={(event) => void submit(event)} className="stack">
        <label>
          Email
          <input
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

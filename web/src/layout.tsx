// The signed-in frame: a skip link, the navigation, the workspace picker, the test-mode banner and the page.
import { NavLink, Outlet } from 'react-router';
import { areaNav } from './areas.ts';
import { useApp } from './ui.tsx';

const NAV = [
  ['/posts', 'Posts'],
  ['/posts/new', 'New post'],
  ...areaNav,
  ['/connections', 'Connections'],
  ['/webhooks', 'Webhooks'],
  ['/settings/keys', 'API keys'],
  ['/settings/members', 'Members'],
  ['/settings/account', 'Account'],
] as const;

export function Layout() {
  const { me, workspace, selectWorkspace, signOut } = useApp();
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Herald</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([to, label]) => (
              <li key={to}>
                <NavLink to={to} end>
                  {label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <label htmlFor="workspace-picker">Workspace</label>
          <select
            id="workspace-picker"
            value={workspace?.id ?? ''}
            onChange={(event) => selectWorkspace(event.target.value)}
          >
            {me.workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name} ({w.mode}, {w.role})
              </option>
            ))}
          </select>
          <span className="meta">{me.user.email}</span>
          <button type="button" className="secondary small" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      {workspace?.mode === 'test' ? (
        <p className="test-banner" role="note">
          Test workspace: posts go to Herald&apos;s built-in platform simulators and never leave this machine.
        </p>
      ) : null}
      <main id="main" tabIndex={-1}>
        {workspace ? <Outlet /> : <p>You are not a member of any workspace yet.</p>}
      </main>
    </>
  );
}

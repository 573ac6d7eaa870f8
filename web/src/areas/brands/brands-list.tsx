// Brands: the workspace's brands (oldest first), a new one by name, and deletion of one that allows it
// (docs/api.md "Brands").
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { Confirm, ErrorNote, formatTime, PageTitle, Show, useAction, useApp, useLoad } from '../../ui.tsx';
import './brands.css';

export function BrandsPage() {
  const { herald, reloadMe } = useApp();
  const navigate = useNavigate();
  const brands = useLoad(() => herald.GET('/brands', { params: { query: { limit: 100 } } }), [herald]);
  const [name, setName] = useState('');
  const create = useAction();
  const remove = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const made = await create.run(() => herald.POST('/brands', { body: { name: name.trim() } }));
    if (made) {
      void reloadMe();
      void navigate(`/brands/${made.id}`);
    }
  };
  return (
    <>
      <PageTitle>Brands</PageTitle>
      <form className="filters card" aria-label="New brand" onSubmit={(e) => void submit(e)}>
        <label>
          New brand name
          <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit" disabled={create.busy || !name.trim()}>
          Create the brand
        </button>
      </form>
      <ErrorNote error={create.error} />
      <ErrorNote error={remove.error} />
      <Show loaded={brands} what="brands" empty={(d) => d.items.length === 0}>
        {(page) => (
          <div className="table-wrap" role="region" aria-label="Brands" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Brand</th>
                  <th scope="col">Slug</th>
                  <th scope="col">Version</th>
                  <th scope="col">Changed</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((b) => (
                  <tr key={b.id}>
                    <th scope="row">
                      <Link to={`/brands/${b.id}`}>{b.name}</Link>
                      {b.is_default ? <span className="badge">default</span> : null}
                    </th>
                    <td>
                      <code>{b.slug}</code>
                    </td>
                    <td>{b.version}</td>
                    <td>{formatTime(b.updated_at)}</td>
                    <td>
                      {b.is_default ? null : (
                        <Confirm
                          label={`Delete ${b.name}`}
                          title={`Delete the brand ${b.name}?`}
                          description="Its posts stay readable. A brand with connected accounts or posts still to publish cannot be deleted."
                          action="Delete"
                          onConfirm={async () => {
                            await remove.run(() => herald.DELETE('/brands/{id}', { params: { path: { id: b.id } } }));
                            brands.reload();
                            void reloadMe();
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
    </>
  );
}

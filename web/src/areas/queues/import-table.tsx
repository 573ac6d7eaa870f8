// The rows of a bulk import, as the dry run checks them and as the import job records them: row number, status,
// and each error with its code, column and platform.
import { Link } from 'react-router';
import { formatTime } from '../../ui.tsx';
import type { DryRun, PostImport, RowError } from './shared.ts';

function Errors({ errors }: { errors: RowError[] }) {
  if (errors.length === 0) return <span className="meta">—</span>;
  return (
    <ul className="row-errors">
      {errors.map((e, i) => (
        <li key={i}>
          <code>{e.code}</code>
          {e.field ? (
            <span className="meta">
              {' '}
              column <code>{e.field}</code>
            </span>
          ) : null}
          {e.platform ? <span className="meta"> on {e.platform}</span> : null}: {e.message}
        </li>
      ))}
    </ul>
  );
}

function Outcome({ status }: { status: 'ok' | 'error' }) {
  return (
    <span className={`status ${status === 'ok' ? 'published' : 'failed'}`}>{status === 'ok' ? 'ok' : 'error'}</span>
  );
}

export function DryRunTable({ run }: { run: DryRun }) {
  return (
    <div className="table-wrap">
      <table aria-label="Dry run, row by row" className="import-rows">
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Status</th>
            <th scope="col">Errors</th>
            <th scope="col">Would publish</th>
          </tr>
        </thead>
        <tbody>
          {run.rows.map((r) => (
            <tr key={r.row} data-row={r.row} data-status={r.status}>
              <th scope="row">{r.row}</th>
              <td>
                <Outcome status={r.status} />
              </td>
              <td>
                <Errors errors={r.errors} />
              </td>
              <td>
                {r.preview ? (
                  <>
                    <p className="meta">
                      {r.preview.schedule_at
                        ? formatTime(r.preview.schedule_at)
                        : 'No time yet: a draft, or a queue slot taken on import'}
                    </p>
                    {r.preview.platforms.map((p) => (
                      <p key={p.platform} className="preview-text">
                        <strong>{p.platform}</strong>: {p.text}
                      </p>
                    ))}
                  </>
                ) : (
                  <span className="meta">—</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ResultTable({ result }: { result: PostImport }) {
  return (
    <div className="table-wrap">
      <table aria-label="Import results, row by row" className="import-rows">
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Status</th>
            <th scope="col">Post</th>
            <th scope="col">Errors</th>
          </tr>
        </thead>
        <tbody>
          {result.rows.map((r) => (
            <tr key={r.row} data-row={r.row} data-status={r.status}>
              <th scope="row">{r.row}</th>
              <td>
                <Outcome status={r.status} />
              </td>
              <td>
                {r.post_id ? <Link to={`/posts/${r.post_id}`}>{r.post_id}</Link> : <span className="meta">—</span>}
              </td>
              <td>
                <Errors errors={r.errors} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

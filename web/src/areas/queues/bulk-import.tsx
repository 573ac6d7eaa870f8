// Bulk import from a CSV: the file goes up through the signed-URL media flow as text/csv, then a dry run
// (POST /v1/posts/bulk with dry_run) shows every row's verdict before anything exists; "Import" starts the real run
// and opens its progress page.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Progress } from 'radix-ui';
import { ErrorNote, PageTitle, useAction, useApp } from '../../ui.tsx';
import { uploadWithProgress } from '../../upload.ts';
import { DryRunTable } from './import-table.tsx';
import type { DryRun, PostImport } from './shared.ts';
import './queues.css';

const COLUMNS: Array<[string, string]> = [
  ['content', 'the text'],
  ['platforms', 'x, bluesky, …'],
  ['schedule_at, timezone', 'a time (none and no queue: a draft)'],
  ['queue, queue_id', 'next or last instead of a time'],
  ['media_urls, media_ids', 'files to attach'],
  ['brand_id', 'the brand'],
  ['<platform>.<option>', 'e.g. mastodon.visibility'],
  ['metadata.<key>', 'your own labels'],
];

interface Checked {
  mediaId: string;
  filename: string;
  answer: DryRun | PostImport;
}

export function ImportPage() {
  const { herald } = useApp();
  const navigate = useNavigate();
  const [progress, setProgress] = useState<number | undefined>();
  const [checked, setChecked] = useState<Checked | undefined>();
  const check = useAction();
  const start = useAction();

  const choose = async (file: File | undefined) => {
    if (!file) return;
    setChecked(undefined);
    setProgress(0);
    // Browsers name a .csv file's type variously (or not at all); Herald takes a CSV only as text/csv.
    const csv = new File([file], file.name, { type: 'text/csv' });
    const done = await check.run(async () => {
      const media = await uploadWithProgress(herald, csv, setProgress);
      setProgress(undefined);
      const answer = await herald.POST('/posts/bulk', { body: { media_id: media.id, dry_run: true } });
      return { mediaId: media.id, filename: file.name, answer: answer as DryRun | PostImport };
    });
    setProgress(undefined);
    if (done) setChecked(done);
  };

  const runImport = async (mediaId: string) => {
    const made = await start.run(() => herald.POST('/posts/bulk', { body: { media_id: mediaId } }));
    if (made) void navigate(`/queues/import/${(made as PostImport).id}`);
  };

  return (
    <>
      <p>
        <Link to="/queues">← All queues</Link>
      </p>
      <PageTitle>Import posts from a CSV</PageTitle>
      <details className="card">
        <summary>Columns Herald reads</summary>
        <p className="meta">
          The first line names the columns; each further line is one post (row 1 is the line after the header). At most
          5,000 rows and 10 MiB.
        </p>
        <dl className="columns">
          {COLUMNS.map(([name, what]) => (
            <div key={name}>
              <dt>
                <code>{name}</code>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
      </details>
      <div className="card stack">
        <label>
          CSV file
          <input
            type="file"
            accept=".csv,text/csv"
            disabled={check.busy || start.busy}
            onChange={(e) => void choose(e.target.files?.[0])}
          />
        </label>
        <p className="meta">Nothing is created yet: Herald first checks every row and shows the result here.</p>
        <div className="media-slot" role="status" aria-live="polite">
          {progress !== undefined ? (
            <Progress.Root className="progress" value={Math.round(progress * 100)} aria-label="Upload progress">
              <Progress.Indicator
                className="progress-bar"
                style={{ transform: `translateX(-${100 - progress * 100}%)` }}
              />
            </Progress.Root>
          ) : check.busy ? (
            <p className="loading">Checking every row…</p>
          ) : null}
        </div>
      </div>
      <ErrorNote error={check.error} />
      {checked ? (
        <Verdict checked={checked} busy={start.busy} onImport={() => void runImport(checked.mediaId)} />
      ) : null}
      <ErrorNote error={start.error} />
    </>
  );
}

function Verdict({ checked, busy, onImport }: { checked: Checked; busy: boolean; onImport(): void }) {
  const { answer, filename } = checked;
  if (answer.object === 'post_import') {
    // Herald imports a CSV media once per workspace and answers the first import again.
    return (
      <section aria-labelledby="dry-run">
        <h2 id="dry-run">Already imported</h2>
        <p>
          This file was imported before. <Link to={`/queues/import/${answer.id}`}>See that import</Link>.
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="dry-run">
      <h2 id="dry-run">Dry run of {filename}</h2>
      <p data-testid="dry-run-summary">
        {answer.total} row{answer.total === 1 ? '' : 's'}: {answer.valid} ready, {answer.invalid} with errors.
        {answer.invalid ? ' Rows with errors are skipped; the others are created.' : ''}
      </p>
      <div className="actions">
        <button type="button" disabled={busy || answer.valid === 0} onClick={onImport}>
          Import {answer.valid} row{answer.valid === 1 ? '' : 's'}
        </button>
      </div>
      <DryRunTable run={answer} />
    </section>
  );
}

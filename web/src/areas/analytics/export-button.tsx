// The CSV export: fetched with the session (a plain link could not send the workspace header) and handed to the
// browser as a download named as the server names it.
import { HeraldError } from '../../api.ts';
import { ErrorNote, useAction, useApp } from '../../ui.tsx';
import { windowQuery, type Window } from './period.tsx';

export function ExportButton({ window }: { window: Window }) {
  const { herald } = useApp();
  const action = useAction();
  const download = () =>
    action.run(async () => {
      const answer = await herald.api.GET('/analytics/export', {
        params: { query: windowQuery(window) },
        parseAs: 'blob',
      });
      if (!answer.response.ok) throw HeraldError.from(answer.response, answer.error);
      const disposition = answer.response.headers.get('content-disposition') ?? '';
      const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'herald-analytics.csv';
      const href = URL.createObjectURL(answer.data as Blob);
      const link = document.createElement('a');
      link.href = href;
      link.download = name;
      document.body.append(link);
      link.click();
      link.remove();
      // The browser reads the blob after click() returns; freeing it at once could cut the download short.
      setTimeout(() => URL.revokeObjectURL(href), 60_000);
    });
  return (
    <div className="export">
      <button type="button" className="secondary" disabled={action.busy} onClick={() => void download()}>
        {action.busy ? 'Preparing the CSV…' : 'Download CSV'}
      </button>
      <ErrorNote error={action.error} />
    </div>
  );
}

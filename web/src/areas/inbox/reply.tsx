// Answering an item: a reply typed, filled from a template or generated in the brand's voice (POST
// /v1/inbox/{id}/draft), always shown in an editable text area first, then sent (POST /v1/inbox/{id}/respond).
import { useRef, useState, type FormEvent } from 'react';
import { HeraldError } from '../../api.ts';
import { ErrorNote, useAction, useApp } from '../../ui.tsx';
import { newKey, refusedRule, ruleInWords, type InboxRespondResult, type InboxThreadItem } from './shared.tsx';

const SOURCE_WORDS = { text: 'typed', template: 'filled from a template', generated: 'generated in the brand’s voice' };

function Outcome({ result }: { result: InboxRespondResult }) {
  if (result.status === 'sent')
    return (
      <p className="inbox-ok" role="status" data-testid="reply-outcome">
        Sent. The platform’s id of the reply is <code>{result.platform_reply_id}</code>
        {result.response.permalink ? (
          <>
            {' '}
            (
            <a href={result.response.permalink} target="_blank" rel="noreferrer">
              view it
            </a>
            )
          </>
        ) : null}
        .
      </p>
    );
  const error = result.error;
  return (
    <div className="error" role="alert" data-testid="reply-outcome">
      <p>Not sent: {error?.message ?? 'the platform did not take it.'}</p>
      {ruleInWords(error?.rule) ? <p>{ruleInWords(error?.rule)}</p> : null}
      <p className="meta">
        Code <code>{error?.code ?? 'unknown'}</code>. Sending again makes a new attempt.
      </p>
    </div>
  );
}

export function Reply({ item, onChanged }: { item: InboxThreadItem; onChanged(): void }) {
  const { herald } = useApp();
  const [text, setText] = useState(item.draft?.text ?? '');
  const [source, setSource] = useState(item.draft?.source);
  const [template, setTemplate] = useState('Thanks {{author}}! ');
  const [privately, setPrivately] = useState(false);
  const [result, setResult] = useState<InboxRespondResult | undefined>();
  // One key per intended reply: kept while the same text is retried (a double click or a retry after a lost
  // answer replays the first result instead of posting twice), replaced once the reply has an answer or changes.
  const key = useRef(newKey());
  const drafting = useAction();
  const sending = useAction();

  const edit = (value: string) => {
    setText(value);
    setSource('text');
    key.current = newKey();
  };
  const draft = async (body: { template: string } | { generate: true }) => {
    setResult(undefined);
    const updated = await drafting.run(() =>
      herald.POST('/inbox/{id}/draft', { params: { path: { id: item.id } }, body }),
    );
    if (updated?.draft) {
      setText(updated.draft.text);
      setSource(updated.draft.source);
      key.current = newKey();
    }
  };
  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (sending.busy) return;
    setResult(undefined);
    const answer = await sending.run(async () => {
      try {
        return await herald.POST('/inbox/{id}/respond', {
          params: { path: { id: item.id }, header: { 'Idempotency-Key': key.current } },
          body: { text, ...(privately ? { private: true } : {}) },
        });
      } catch (error) {
        // A refusal the server decided (a rule, a validation) is final for this key; a lost answer (no status,
        // or a 5xx after the client's own retries) keeps it, so the next click is a retry of the same reply.
        if (error instanceof HeraldError && error.status >= 400 && error.status < 500) key.current = newKey();
        // A platform rule leaves a failed reply on the item: show it among the replies.
        if (error instanceof HeraldError && error.status === 422) onChanged();
        throw error;
      }
    });
    if (answer) {
      setResult(answer);
      key.current = newKey();
      onChanged();
    }
  };
  const rule = ruleInWords(refusedRule(sending.error) ?? refusedRule(drafting.error));

  return (
    <section className="card stack inbox-reply" aria-labelledby="reply-heading">
      <h2 id="reply-heading">Reply</h2>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={drafting.busy}
          onClick={() => void draft({ generate: true })}
        >
          Generate a draft in the brand’s voice
        </button>
      </div>
      <details className="template">
        <summary>Fill from a template</summary>
        <div className="stack">
          <label>
            Template
            <textarea rows={2} value={template} onChange={(e) => setTemplate(e.target.value)} />
          </label>
          <p className="meta">
            Placeholders: <code>{'{{author}}'}</code>, <code>{'{{author.username}}'}</code>,{' '}
            <code>{'{{platform}}'}</code>, <code>{'{{brand.name}}'}</code>, <code>{'{{brand.website}}'}</code>,{' '}
            <code>{'{{brand.signature}}'}</code>, <code>{'{{brand.cta}}'}</code>.
          </p>
          <div>
            <button
              type="button"
              className="secondary"
              disabled={drafting.busy || template.trim() === ''}
              onClick={() => void draft({ template })}
            >
              Fill the template
            </button>
          </div>
        </div>
      </details>
      <ErrorNote error={drafting.error} />
      <form className="stack" aria-label="Send a reply" onSubmit={(e) => void send(e)}>
        <label>
          Reply text
          <textarea rows={5} value={text} onChange={(e) => edit(e.target.value)} aria-describedby="reply-source" />
        </label>
        <p className="meta" id="reply-source" aria-live="polite">
          {drafting.busy
            ? 'Writing a draft…'
            : source && text
              ? `Draft ${SOURCE_WORDS[source]}; edit it as you like before sending.`
              : 'Type a reply, or start from a generated draft or a template.'}
        </p>
        <label className="check">
          <input
            type="checkbox"
            checked={privately}
            onChange={(e) => {
              setPrivately(e.target.checked);
              key.current = newKey();
            }}
          />
          <span>Answer privately (a direct message) where the platform can</span>
        </label>
        <div>
          <button type="submit" disabled={sending.busy || text.trim() === ''}>
            {sending.busy ? 'Sending…' : 'Send the reply'}
          </button>
        </div>
      </form>
      {result ? <Outcome result={result} /> : null}
      {rule ? (
        <p className="error-inline" data-testid="reply-rule">
          {rule}
        </p>
      ) : null}
      <ErrorNote error={sending.error} />
    </section>
  );
}

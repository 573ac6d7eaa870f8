// The compiled brand context exactly as a text-generation call receives it (GET /v1/brands/{id}/context): the
// provider's system message carries this text between its BRAND markers (docs/ai.md "Prompts and untrusted input").
import { Show, useApp, useLoad } from '../../ui.tsx';

export function ContextView({ brandId, version }: { brandId: string; version: number }) {
  const { herald } = useApp();
  const context = useLoad(
    () => herald.GET('/brands/{id}/context', { params: { path: { id: brandId } } }),
    [herald, brandId, version],
  );
  return (
    <section className="card context" aria-labelledby="context-title">
      <h2 id="context-title">Compiled context</h2>
      <p className="meta">What every text-generation task is given for this brand, as it is given.</p>
      <Show loaded={context} what="the compiled context">
        {(c) => (
          <>
            <p className="meta" data-testid="context-version">
              Version {c.version} · {c.text.length.toLocaleString()} of {c.max_chars.toLocaleString()} characters
              {c.truncated.length ? ` · cut to fit: ${c.truncated.join(', ')}` : ' · nothing cut'}
            </p>
            <pre className="context-text" data-testid="brand-context" tabIndex={0} aria-label="Compiled brand context">
              {c.text.trim() || '(none)'}
            </pre>
          </>
        )}
      </Show>
    </section>
  );
}

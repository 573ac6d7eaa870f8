// The template of docs/platforms/<p>.md: the platform's page, one FILL IN section per thing the adapter and the
// simulator must learn from the platform's documentation. Tokens: __p__ name, __D__ display.

const DOC = `# __D__

How Herald talks to __D__: what the adapter (\`src/platforms/__p__/\`) and the simulator (\`src/sandbox/__p__/\`)
implement, from the platform's documentation. Scaffolded by \`node scripts/new-platform.ts __p__\`; every section
is a FILL IN until the platform is implemented (\`grep -rn "FILL IN:" src docs\`).

## Auth

FILL IN: how an account is connected (OAuth 2.0 authorization code, PKCE or not, how the client authenticates),
the scopes Herald asks for, token lifetimes, refresh and revocation, the app review the platform requires.

## Calls

FILL IN: the endpoints Herald calls (publish, media upload and status, look-up, delete, account), with their
request and answer shapes.

## Limits

FILL IN: text length and how it is counted, media kinds, types, sizes, durations and counts, reply chains
(\`src/platforms/__p__/limits.ts\`).

## Rate limits

FILL IN: the windows (per app, per user, per day), the headers that report them and what a 429 looks like.

## Errors

FILL IN: the error body shape and the table status / body → kind (\`src/platforms/__p__/errors.ts\`): expired
tokens, refused content, refused media, duplicates, permissions, outages.

## Idempotency

FILL IN: whether the platform honours an idempotency key; if not, how \`findPublished\` looks a part up after an
unknown outcome (recent posts, text, reply target) and how far back it searches.

## Metrics and inbox

FILL IN: what the platform offers for metrics, comments and replies (optional capabilities \`fetchMetrics\`,
\`listComments\`, \`reply\`); leave them out of the adapter until implemented.

## Unverified

FILL IN: what the documentation does not settle, marked \`⚠ unverified\` in the code and listed in
\`docs/platform-fidelity.md\`.
`;

/** The platform's page, path → template (not yet filled). */
export function docFiles(p: string): Record<string, string> {
  return { [`docs/platforms/${p}.md`]: DOC };
}

// Settings of text generation (src/features/ai, docs/ai.md): which provider answers, where an OpenAI-compatible
// endpoint is and how long it may take, and each workspace's daily budget of provider calls and tokens; and the
// reading of them into the config, checked together.
import { baseUrl, integer, oneOf, text } from './parsers.ts';
import { optionalSetting, setting, type ReadSetting, type Report } from './setting.ts';

export const AI_PROVIDERS = ['deterministic', 'openai_compatible'] as const;
export type AiProviderName = (typeof AI_PROVIDERS)[number];

export const AI_RESPONSE_FORMATS = ['json_schema', 'json_object'] as const;
export type AiResponseFormat = (typeof AI_RESPONSE_FORMATS)[number];

export const AI_SETTINGS = {
  provider: setting<AiProviderName>({
    name: 'HERALD_AI_PROVIDER',
    default: 'deterministic',
    parse: oneOf(AI_PROVIDERS),
    description:
      'Who writes generated text: `deterministic` (templates, extractive summaries, rules; offline) or `openai_compatible` (an endpoint speaking `POST /chat/completions`: a hosted API, Ollama, llama.cpp), with the deterministic engine as its fallback.',
  }),
  baseUrl: optionalSetting({
    name: 'HERALD_AI_BASE_URL',
    parse: baseUrl(['http:', 'https:']),
    description:
      'Base URL of the OpenAI-compatible API, the part before `/chat/completions` (e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1` for Ollama). Required with `openai_compatible`; operator-chosen, so private and loopback addresses are allowed.',
  }),
  apiKey: optionalSetting({
    name: 'HERALD_AI_API_KEY',
    parse: text,
    description: 'Bearer key sent to the endpoint (never logged). Unset: no `Authorization` header (local servers).',
  }),
  model: optionalSetting({
    name: 'HERALD_AI_MODEL',
    parse: text,
    description:
      'Model name sent with every request (e.g. `gpt-4o-mini`, `llama3.1`). Required with `openai_compatible`.',
  }),
  timeoutMs: setting({
    name: 'HERALD_AI_TIMEOUT_MS',
    default: 30_000,
    parse: integer(100, 600_000),
    description:
      'Deadline of one provider call, connect to last byte; a call that times out is answered by the deterministic engine.',
  }),
  maxOutputTokens: setting({
    name: 'HERALD_AI_MAX_OUTPUT_TOKENS',
    default: 1024,
    parse: integer(16, 65_536),
    description: 'Most tokens the model may write per call (`max_tokens`).',
  }),
  responseFormat: setting<AiResponseFormat>({
    name: 'HERALD_AI_RESPONSE_FORMAT',
    default: 'json_schema',
    parse: oneOf(AI_RESPONSE_FORMATS),
    description:
      "How JSON output is asked for: `json_schema` (structured outputs: OpenAI, Ollama, llama.cpp) or `json_object` for endpoints without it. Herald validates every answer against the task's schema either way.",
  }),
  dailyCalls: setting({
    name: 'HERALD_AI_DAILY_CALLS',
    default: 500,
    parse: integer(0, 10_000_000),
    description:
      'Provider calls one workspace may make per UTC day (0: none). Refused calls get `PUBLIC_API_AI_LIMIT_EXCEEDED`, or the deterministic answer where the caller asked for it.',
  }),
  dailyTokens: setting({
    name: 'HERALD_AI_DAILY_TOKENS',
    default: 1_000_000,
    parse: integer(0, 1_000_000_000),
    description:
      'Tokens (prompt and output) one workspace may spend per UTC day; a call is admitted only if its prompt estimate plus `HERALD_AI_MAX_OUTPUT_TOKENS` fits.',
  }),
};

/** Text generation (src/features/ai, docs/ai.md). */
export interface AiConfig {
  provider: AiProviderName;
  /** Set (and checked) when `provider` is `openai_compatible`. */
  openai: { baseUrl: string; apiKey: string | undefined; model: string; responseFormat: AiResponseFormat } | undefined;
  timeoutMs: number;
  maxOutputTokens: number;
  /** Per workspace and UTC day. */
  dailyCalls: number;
  dailyTokens: number;
}

/** The text-generation settings, checked together: the endpoint's are read only for `openai_compatible`. */
export function aiConfig(read: ReadSetting, report: Report): AiConfig {
  const provider = read(AI_SETTINGS.provider);
  let openai: AiConfig['openai'];
  // The endpoint's settings are required (and only meaningful) for the openai_compatible provider.
  if (provider === 'openai_compatible') {
    const baseUrl = read(AI_SETTINGS.baseUrl);
    const model = read(AI_SETTINGS.model);
    if (!baseUrl) report('HERALD_AI_BASE_URL is required when HERALD_AI_PROVIDER is openai_compatible');
    if (!model) report('HERALD_AI_MODEL is required when HERALD_AI_PROVIDER is openai_compatible');
    openai = {
      baseUrl: baseUrl ?? '',
      apiKey: read(AI_SETTINGS.apiKey),
      model: model ?? '',
      responseFormat: read(AI_SETTINGS.responseFormat),
    };
  }
  const ai = {
    provider,
    openai,
    timeoutMs: read(AI_SETTINGS.timeoutMs),
    maxOutputTokens: read(AI_SETTINGS.maxOutputTokens),
    dailyCalls: read(AI_SETTINGS.dailyCalls),
    dailyTokens: read(AI_SETTINGS.dailyTokens),
  };
  // Every call reserves at least its output cap, so a smaller daily budget could never admit one.
  if (ai.dailyTokens > 0 && ai.dailyTokens < ai.maxOutputTokens)
    report(
      `HERALD_AI_DAILY_TOKENS (${ai.dailyTokens}) is below HERALD_AI_MAX_OUTPUT_TOKENS (${ai.maxOutputTokens}): no call could ever be admitted (set HERALD_AI_DAILY_CALLS=0 to allow none)`,
    );
  return ai;
}

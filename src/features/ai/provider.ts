// The openai_compatible provider (docs/ai.md "The request"): one `POST {base}/chat/completions` per call, JSON
// output asked for by schema (or as a plain JSON object), a deadline, no retry of its own. It answers with the
// model's text or a classified failure; parsing and validating the text is the service's job, so the same checks
// apply whatever the endpoint claims to enforce. The base URL is the operator's (an environment setting), so it
// is a trusted destination like the platform APIs: no SSRF guard, and a local Ollama or llama.cpp works.
import { OutboundError, outboundRequest } from '../../lib/outbound.ts';
import type { AiResponseFormat } from '../../config/ai.ts';
import type { ChatMessage } from './prompt.ts';

export interface ProviderSettings {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  responseFormat: AiResponseFormat;
  timeoutMs: number;
  maxOutputTokens: number;
}

export interface CompletionRequest {
  /** Names the schema in `response_format` (letters, digits, `_`, `-`). */
  name: string;
  schema: unknown;
  messages: ChatMessage[];
}

export type CompletionResult =
  | { ok: true; content: string; promptTokens: number | undefined; completionTokens: number | undefined }
  | {
      ok: false;
      reason: 'refused' | 'timeout' | 'unavailable' | 'invalid_output';
      /** Whether a second attempt can help (a refusal or a 5xx may not repeat; a 401 will). */
      retryable: boolean;
      /** For the log: never the key, never the prompt. */
      detail: string;
      promptTokens?: number;
      completionTokens?: number;
    };

interface ChatCompletion {
  choices?: { message?: { content?: string | null; refusal?: string | null }; finish_reason?: string }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: string };
}

export interface ChatProvider {
  complete(request: CompletionRequest): Promise<CompletionResult>;
}

export function createOpenAiCompatibleProvider(settings: ProviderSettings): ChatProvider {
  const url = `${settings.baseUrl}/chat/completions`;
  return {
    async complete(request) {
      const responseFormat =
        settings.responseFormat === 'json_schema'
          ? { type: 'json_schema', json_schema: { name: request.name, schema: request.schema } }
          : { type: 'json_object' };
      const body = JSON.stringify({
        model: settings.model,
        messages: request.messages,
        response_format: responseFormat,
        max_tokens: settings.maxOutputTokens,
        temperature: 0.2,
        stream: false,
      });
      let response;
      try {
        response = await outboundRequest({
          method: 'POST',
          url,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
          },
          body,
          timeoutMs: settings.timeoutMs,
          maxResponseBytes: 4 * 1024 * 1024,
        });
      } catch (error) {
        if (error instanceof OutboundError && error.kind === 'timeout')
          return { ok: false, reason: 'timeout', retryable: false, detail: error.message };
        return { ok: false, reason: 'unavailable', retryable: true, detail: (error as Error).message };
      }
      let parsed: ChatCompletion | undefined;
      try {
        parsed = JSON.parse(response.body.toString('utf8')) as ChatCompletion;
      } catch {
        parsed = undefined;
      }
      if (response.status < 200 || response.status > 299) {
        // 429 and 5xx may pass on a second try; other 4xx (bad key, unknown model, bad request) will not.
        const retryable = response.status === 429 || response.status >= 500;
        const message = parsed?.error?.message ? `: ${parsed.error.message.slice(0, 200)}` : '';
        return { ok: false, reason: 'unavailable', retryable, detail: `HTTP ${response.status}${message}` };
      }
      const usage = {
        promptTokens: parsed?.usage?.prompt_tokens,
        completionTokens: parsed?.usage?.completion_tokens,
      };
      const choice = parsed?.choices?.[0];
      if (!choice?.message) {
        return {
          ok: false,
          reason: 'invalid_output',
          retryable: true,
          detail: 'no choices[0].message in the answer',
          ...usage,
        };
      }
      if (choice.message.refusal) {
        return { ok: false, reason: 'refused', retryable: true, detail: 'the model refused', ...usage };
      }
      const content = choice.message.content;
      if (typeof content !== 'string' || content.trim() === '') {
        return { ok: false, reason: 'invalid_output', retryable: true, detail: 'empty content', ...usage };
      }
      return { ok: true, content, ...usage };
    },
  };
}

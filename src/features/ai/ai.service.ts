// Text generation, one interface for every caller (docs/ai.md): `generate({ task, brand, inputs, workspaceId })`
// checks the inputs against the task's schema, asks the configured model with the inputs as delimited data,
// validates its JSON answer against the task's output schema and checks, tries once more, and otherwise answers
// with the deterministic engine. Provider calls are admitted against each workspace's daily budget first.
import { AppError, validationFailed, type ErrorDetail } from '../../app/errors.ts';
import { bodyValidator } from '../../app/validation.ts';
import type { AiConfig } from '../../config.ts';
import type { Queryable } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/metrics.ts';
import type { BrandInput, FallbackReason, Generated, GeneratedBy, TaskDefinition } from './ai.types.ts';
import { buildPrompt, estimateTokens } from './prompt.ts';
import { createOpenAiCompatibleProvider, type ChatProvider } from './provider.ts';
import { findTask, listTasks } from './tasks.ts';
import { admitCall, settleTokens, usageOn, type UsageRow } from './usage.repo.ts';

export interface GenerateRequest {
  /** A registered task's name, or a task definition of the caller's own. */
  task: string | TaskDefinition;
  /** The compiled brand context (src/features/brands/context.ts) or any value with its `text`. */
  brand: BrandInput;
  /** The task's inputs: data, never instructions. Checked against the task's input schema. */
  inputs: unknown;
  workspaceId: string;
  /**
   * When the workspace's daily budget is spent: `error` (the default) throws PUBLIC_API_AI_LIMIT_EXCEEDED;
   * `deterministic` answers with the deterministic engine and records `fallback_reason: limit_exceeded`.
   */
  onLimit?: 'error' | 'deterministic';
  /** `deterministic` skips the model even when one is configured (no budget is used). */
  engine?: 'auto' | 'deterministic';
}

export interface AiService {
  /** Which provider answers first. */
  readonly provider: AiConfig['provider'];
  generate<T = unknown>(request: GenerateRequest): Promise<Generated<T>>;
  /** The workspace's budget use today (UTC) and the caps. */
  usage(workspaceId: string): Promise<{ day: string; used: UsageRow; caps: { calls: number; tokens: number } }>;
  tasks(): TaskDefinition[];
}

export interface AiDeps {
  config: AiConfig;
  /** Usage is counted here, outside any caller transaction: a call that was made is spent even if the caller rolls back. */
  pool: Queryable;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
}

/** The UTC day of `now` as `YYYY-MM-DD`, and the seconds until the next one begins. */
export function utcDay(now: Date): { day: string; secondsLeft: number } {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return { day: now.toISOString().slice(0, 10), secondsLeft: Math.max(1, Math.ceil((next - now.getTime()) / 1000)) };
}

function resolveTask(task: GenerateRequest['task']): TaskDefinition {
  if (typeof task !== 'string') return task;
  const found = findTask(task);
  if (!found) {
    throw validationFailed([
      {
        path: '/task',
        message: `Unknown task "${task}"; known tasks: ${listTasks()
          .map((t) => t.name)
          .join(', ')}.`,
        rule: 'task_unknown',
      },
    ]);
  }
  return found;
}

function checkInputs(task: TaskDefinition, inputs: unknown): unknown {
  // A copy: the validator fills defaults in, and the caller's object is not ours to change.
  const copy: unknown = inputs === undefined ? {} : structuredClone(inputs);
  const validate = bodyValidator(task.input);
  if (validate(copy)) return copy;
  const details: ErrorDetail[] = (validate.errors ?? []).slice(0, 20).map((e) => {
    const extra =
      e.keyword === 'additionalProperties'
        ? `/${String((e.params as { additionalProperty?: string }).additionalProperty)}`
        : e.keyword === 'required'
          ? `/${String((e.params as { missingProperty?: string }).missingProperty)}`
          : '';
    const message =
      e.keyword === 'additionalProperties'
        ? 'is not a known input'
        : e.keyword === 'required'
          ? 'is required'
          : e.keyword === 'enum'
            ? `must be one of: ${((e.params as { allowedValues?: unknown[] }).allowedValues ?? []).join(', ')}`
            : (e.message ?? 'is invalid');
    return { path: `/inputs${e.instancePath}${extra}`, message, rule: 'ai_input_invalid' };
  });
  throw validationFailed(
    details,
    `The inputs of task "${task.name}" are invalid: ${details[0]?.path} ${details[0]?.message}.`,
  );
}

/** Parses a model's answer: JSON, or JSON in one code fence (local models add them even in JSON mode). */
function parseAnswer(content: string): unknown {
  const trimmed = content.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*)\n```$/.exec(trimmed);
  return JSON.parse(fenced ? fenced[1]! : trimmed);
}

/** Schema problems, then the task's own checks, of an answer; empty when it is accepted. */
function problemsOf(task: TaskDefinition, output: unknown, inputs: unknown, brand: BrandInput): string[] {
  const validate = bodyValidator(task.output);
  if (!validate(output))
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  return task.verify?.(output, inputs, { brand }) ?? [];
}

export function createAiService(deps: AiDeps): AiService {
  const { config, pool, clock, logger, metrics } = deps;
  const provider: ChatProvider | undefined = config.openai
    ? createOpenAiCompatibleProvider({
        ...config.openai,
        timeoutMs: config.timeoutMs,
        maxOutputTokens: config.maxOutputTokens,
      })
    : undefined;
  const caps = { calls: config.dailyCalls, tokens: config.dailyTokens };

  function deterministic<T>(
    task: TaskDefinition,
    inputs: unknown,
    brand: BrandInput,
    fallback: FallbackReason | undefined,
    usage: Generated['usage'],
  ): Generated<T> {
    const output = task.deterministic(inputs, { brand });
    // The engine's answers meet the same schema as the model's; one that does not is a bug in the task.
    const validate = bodyValidator(task.output);
    if (!validate(output))
      throw new Error(
        `AI task "${task.name}": deterministic answer breaks its schema: ${JSON.stringify(validate.errors)}`,
      );
    const generatedBy: GeneratedBy = {
      engine: task.engine,
      provider: 'deterministic',
      model: null,
      ...(fallback ? { fallback_reason: fallback } : {}),
    };
    metrics.aiGenerations.inc({ task: task.name, engine: task.engine, fallback_reason: fallback ?? '' });
    return { output: output as T, generated_by: generatedBy, usage };
  }

  return {
    provider: config.provider,
    tasks: listTasks,
    async usage(workspaceId) {
      const { day } = utcDay(clock.now());
      return { day, used: await usageOn(pool, workspaceId, day), caps };
    },
    async generate<T>(request: GenerateRequest): Promise<Generated<T>> {
      const task = resolveTask(request.task);
      const inputs = checkInputs(task, request.inputs);
      const { brand } = request;
      const usage = { calls: 0, prompt_tokens: 0, completion_tokens: 0 };
      if (!provider || !config.openai || request.engine === 'deterministic')
        return deterministic<T>(task, inputs, brand, undefined, usage);

      const prompt = buildPrompt(task, brand, inputs);
      const estimate = estimateTokens(prompt.messages);
      const reserve = estimate + config.maxOutputTokens;
      let reason: FallbackReason = 'invalid_output';
      for (let attempt = 1; attempt <= 2; attempt++) {
        const { day, secondsLeft } = utcDay(clock.now());
        const admitted = await admitCall(pool, request.workspaceId, day, reserve, caps);
        if (!admitted) {
          const onLimit = request.onLimit ?? 'error';
          metrics.aiLimitRefusals.inc({ action: onLimit });
          if (onLimit === 'deterministic') return deterministic<T>(task, inputs, brand, 'limit_exceeded', usage);
          const used = await usageOn(pool, request.workspaceId, day);
          throw new AppError(
            'PUBLIC_API_AI_LIMIT_EXCEEDED',
            `This workspace has used its text-generation budget for ${day} (${used.calls} of ${caps.calls} calls, ${used.tokens} of ${caps.tokens} tokens; a call reserves ${reserve}). It resets at 00:00 UTC.`,
            { headers: { 'retry-after': String(secondsLeft) } },
          );
        }
        const result = await provider.complete({ name: task.name, schema: task.output, messages: prompt.messages });
        const promptTokens = result.promptTokens ?? estimate;
        const completionTokens = result.completionTokens ?? (result.ok ? Math.ceil(result.content.length / 3) : 0);
        usage.calls++;
        usage.prompt_tokens += promptTokens;
        usage.completion_tokens += completionTokens;
        metrics.aiTokens.inc({ kind: 'prompt' }, promptTokens);
        metrics.aiTokens.inc({ kind: 'completion' }, completionTokens);
        await settleTokens(pool, request.workspaceId, day, promptTokens + completionTokens - reserve);

        let problems: string[];
        let output: unknown;
        if (result.ok) {
          try {
            output = parseAnswer(result.content);
            problems = problemsOf(task, output, inputs, brand);
          } catch {
            problems = ['the answer is not JSON'];
          }
          if (problems.length === 0) {
            metrics.aiProviderCalls.inc({ outcome: 'ok' });
            metrics.aiGenerations.inc({ task: task.name, engine: 'llm', fallback_reason: '' });
            return {
              output: output as T,
              generated_by: { engine: 'llm', provider: 'openai_compatible', model: config.openai.model },
              usage,
            };
          }
          reason = 'invalid_output';
          metrics.aiProviderCalls.inc({ outcome: 'invalid_output' });
          logger.warn(
            { task: task.name, attempt, problems: problems.slice(0, 5) },
            'AI provider answer rejected by the task schema',
          );
        } else {
          reason = result.reason;
          metrics.aiProviderCalls.inc({ outcome: result.reason });
          logger.warn(
            { task: task.name, attempt, reason: result.reason, detail: result.detail },
            'AI provider call failed',
          );
          if (!result.retryable) break;
        }
      }
      return deterministic<T>(task, inputs, brand, reason, usage);
    },
  };
}

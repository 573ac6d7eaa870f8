// The shapes of text generation (docs/ai.md): what a caller hands `generate`, what a task is, and the provenance
// every generated artefact records.
import type { Static, TSchema } from 'typebox';

/**
 * What the AI feature reads of a brand. The compiled brand context (src/features/brands/context.ts, `BrandContext`)
 * satisfies it structurally: `text` is the prompt-ready block, `fields` the structured values the deterministic
 * engine fills templates and picks hashtags from. Every field but `text` is optional, so a caller without a
 * compiled context (a test, the CLI on a bare brand) can pass what it has.
 */
export interface BrandInput {
  brand_id?: string;
  /** The prompt-ready brand block: voice, audience, rules. Written by the workspace, so read as guidance. */
  text: string;
  fields?: BrandFields;
}

export interface BrandFields {
  name?: string;
  website?: string | null;
  language?: string | null;
  default_hashtags?: readonly string[];
  signature?: string | null;
  cta_default?: string | null;
  banned_terms?: readonly string[];
  voice?: { hashtags?: 'none' | 'few' | 'many' | null };
}

/** How a result was produced (docs/ai.md "Provenance"): stored with every generated artefact. */
export interface GeneratedBy {
  /** `llm` when the model's answer was used; otherwise the deterministic technique that produced it. */
  engine: 'llm' | DeterministicEngine;
  /** The provider that answered: `openai_compatible` only when `engine` is `llm`. */
  provider: 'deterministic' | 'openai_compatible';
  /** The model that answered; null for the deterministic engine. */
  model: string | null;
  /** Set when the configured model was asked (or would have been) and the deterministic engine answered instead. */
  fallback_reason?: FallbackReason;
}

export type DeterministicEngine = 'template' | 'extractive' | 'rules';

/**
 * Why the deterministic engine answered for a configured model: an answer that was not JSON, broke the schema or
 * the task's own checks, an explicit refusal, a timeout, a transport or HTTP failure, or the daily budget spent
 * (with `onLimit: 'deterministic'`).
 */
export type FallbackReason = 'invalid_output' | 'refused' | 'timeout' | 'unavailable' | 'limit_exceeded';

/** What a task's deterministic answer and checks may read besides its inputs. */
export interface TaskContext {
  brand: BrandInput;
}

/**
 * One kind of generation. A task names its input and output schemas (JSON Schema, written with TypeBox), tells
 * the model what to do, and answers on its own through the deterministic engine, so every call has an answer.
 */
export interface TaskDefinition<I extends TSchema = TSchema, O extends TSchema = TSchema> {
  name: string;
  /** One sentence for docs/ai.md and `herald ai tasks`. */
  summary: string;
  /** The task as told to the model (system message). Never includes caller data. */
  instructions: string;
  input: I;
  output: O;
  /** Which deterministic technique answers (the `engine` recorded when it does). */
  engine: DeterministicEngine;
  deterministic(inputs: Static<I>, context: TaskContext): Static<O>;
  /** Checks beyond the schema (platform limits, banned terms …); each string is one problem. Empty: accepted. */
  verify?(output: Static<O>, inputs: Static<I>, context: TaskContext): string[];
}

/** The whole answer of `generate`. */
export interface Generated<T = unknown> {
  output: T;
  generated_by: GeneratedBy;
  /** Provider calls made for this answer (0, 1 or 2) and the tokens they spent (as the endpoint counted them). */
  usage: { calls: number; prompt_tokens: number; completion_tokens: number };
}

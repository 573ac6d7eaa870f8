// The one thing a text-generation model may do with an insight: reword its title and body from the evidence, in
// the brand's voice. The finding, its numbers and its recommendation always come from the rules; an answer that
// brings a number the rule did not state is refused and the rule's own wording stays (docs/ai.md, `verify`).
import { Type } from 'typebox';
import { defineTask } from '../../ai/tasks.ts';
import type { InsightDraft } from './types.ts';

const NUMBER = /\d+(?:[.,]\d+)?/g;

/** Every number a text states, as written with a dot (`1,5` and `1.5` are the same figure). */
export function numbersIn(text: string): Set<string> {
  return new Set((text.match(NUMBER) ?? []).map((n) => n.replace(',', '.')));
}

export const rewordInsightTask = defineTask({
  name: 'insight_wording',
  summary: "Rewords an insight's title and body from its evidence; never adds a finding or a figure.",
  instructions:
    'Rewrite the insight\'s title and body for the social media manager of this brand, in the brand\'s language and voice. Keep the meaning. Use only the facts given in the inputs: every number you write must appear in the inputs, and you add no advice, claim or figure of your own. The title is at most 120 characters, the body at most 600. Answer as JSON: {"title": ..., "body": ...}.',
  engine: 'rules',
  input: Type.Object(
    {
      kind: Type.String(),
      title: Type.String({ minLength: 1, maxLength: 200 }),
      body: Type.String({ minLength: 1, maxLength: 1000 }),
      evidence: Type.Object({}, { additionalProperties: true }),
      recommendation: Type.Object({}, { additionalProperties: true }),
    },
    { additionalProperties: false },
  ),
  output: Type.Object(
    { title: Type.String({ minLength: 1, maxLength: 120 }), body: Type.String({ minLength: 1, maxLength: 600 }) },
    { additionalProperties: false },
  ),
  deterministic: (inputs) => ({ title: inputs.title.slice(0, 120), body: inputs.body.slice(0, 600) }),
  verify: (output, inputs) => {
    const allowed = numbersIn(`${inputs.title} ${inputs.body} ${JSON.stringify(inputs.evidence)}`);
    const invented = [...numbersIn(`${output.title} ${output.body}`)].filter((n) => !allowed.has(n));
    return invented.length > 0 ? [`states figures the evidence does not: ${invented.join(', ')}`] : [];
  },
});

export function wordingInputs(draft: InsightDraft) {
  return {
    kind: draft.kind,
    title: draft.title,
    body: draft.body,
    evidence: draft.evidence as unknown as Record<string, unknown>,
    recommendation: draft.recommendation as unknown as Record<string, unknown>,
  };
}

// The text-generation task of a repurpose output (docs/ai.md, docs/repurpose.md): the source as data, the platform
// and format named, an answer `{parts, hashtags}` under a JSON Schema. A model's answer is then fitted like the
// extractive engine's (repurpose.fit.ts); the engine's answer is `draftOutput` itself. Passed to `generate` as a
// definition of this feature's own rather than registered, since no other caller asks for it.
import { Type } from 'typebox';
import { StringEnum } from '../../app/envelope.ts';
import { PLATFORM_NAMES } from '../../platforms/limits.ts';
import { containsTerm } from '../brands/brand-rules.ts';
import { defineTask } from '../ai/tasks.ts';
import { MAX_HASHTAG_LENGTH } from '../ai/deterministic/text.ts';
import { draftOutput } from './repurpose.fit.ts';
import { MAX_SOURCE_CHARS, OUTPUT_FORMATS } from './repurpose.schemas.ts';

export const repurposeTask = defineTask({
  name: 'repurpose',
  summary:
    'One output of a repurpose job: the source rewritten for a platform and format as parts (one, or a thread’s), with hashtags.',
  instructions:
    'Rewrite the source in the data block for the platform and format named there, in the brand voice and the `tone` and `language` given, keeping its facts and adding none. A `thread` is several short parts in order; a `post` or `caption` is one part. Do not number the parts and do not add links: Herald adds them. Answer {"parts": ["..."], "hashtags": ["#..."]}.',
  input: Type.Object(
    {
      platform: StringEnum(PLATFORM_NAMES),
      format: StringEnum(OUTPUT_FORMATS),
      title: Type.Optional(Type.String({ maxLength: 300 })),
      text: Type.String({ minLength: 1, maxLength: MAX_SOURCE_CHARS, description: 'The source (untrusted).' }),
      tone: Type.Optional(Type.String({ maxLength: 100 })),
      language: Type.Optional(Type.String({ maxLength: 35 })),
      variant: Type.Integer({ minimum: 0, maximum: 10 }),
    },
    { additionalProperties: false },
  ),
  output: Type.Object(
    {
      parts: Type.Array(Type.String({ minLength: 1, maxLength: 20_000 }), { minItems: 1, maxItems: 30 }),
      hashtags: Type.Array(Type.String({ pattern: '^#[\\p{L}\\p{N}_]+$', maxLength: MAX_HASHTAG_LENGTH }), {
        maxItems: 30,
      }),
    },
    { additionalProperties: false },
  ),
  engine: 'extractive',
  deterministic(inputs) {
    return draftOutput({
      platform: inputs.platform,
      format: inputs.format,
      title: inputs.title ?? null,
      text: inputs.text,
      variant: inputs.variant,
    });
  },
  verify(output, _inputs, { brand }) {
    const all = [...output.parts, ...output.hashtags].join('\n');
    return (brand.fields?.banned_terms ?? [])
      .filter((term) => term.trim() && containsTerm(all, term))
      .map((term) => `uses the banned term "${term}"`);
  },
});

// The repurpose form's state and the body of POST /v1/repurpose (docs/repurpose.md). Fields of another source
// type are left out: the server refuses them (`source_field_unexpected`).
import type { components } from '@herald/client';

export type Job = components['schemas']['RepurposeJob'];
export type CreateJob = components['schemas']['CreateRepurposeJobRequest'];
export type SourceType = CreateJob['source']['type'];
export type Target = CreateJob['targets'][number];
export type PlatformId = Target['platform'];
export type Format = Target['format'];
export type Mode = NonNullable<CreateJob['output']>['mode'];
export type Output = Job['outputs'][number];

export const RUNNING = new Set<Job['status']>(['queued', 'fetching', 'generating']);
export const STEPS: Array<[Job['status'], string]> = [
  ['queued', 'Queued'],
  ['fetching', 'Reading the source'],
  ['generating', 'Writing the outputs'],
];

export interface FormState {
  brandId: string;
  sourceType: SourceType;
  url: string;
  text: string;
  title: string;
  postId: string;
  mediaId: string;
  transcript: string;
  targets: Target[];
  tone: string;
  language: string;
  hashtags: boolean;
  cta: string;
  link: string;
  utmSource: string;
  utmMedium: string;
  utmCampaign: string;
  mode: Mode;
  /** A datetime-local value, read in the browser's time zone. */
  firstAt: string;
  spacing: string;
}

export function emptyForm(brandId: string): FormState {
  return {
    brandId,
    sourceType: 'url',
    url: '',
    text: '',
    title: '',
    postId: '',
    mediaId: '',
    transcript: '',
    targets: [{ platform: 'x', format: 'thread', count: 1 }],
    tone: '',
    language: '',
    hashtags: true,
    cta: '',
    link: '',
    utmSource: '',
    utmMedium: '',
    utmCampaign: '',
    mode: 'draft',
    firstAt: '',
    spacing: '60',
  };
}

const trimmed = (value: string) => (value.trim() ? value.trim() : undefined);

function source(f: FormState): CreateJob['source'] {
  const title = trimmed(f.title);
  switch (f.sourceType) {
    case 'url':
      return { type: 'url', url: f.url.trim() };
    case 'text':
      return { type: 'text', text: f.text, ...(title ? { title } : {}) };
    case 'post':
      return { type: 'post', post_id: f.postId };
    case 'media':
      return { type: 'media', media_id: f.mediaId, transcript: f.transcript, ...(title ? { title } : {}) };
  }
}

export function bodyOf(f: FormState): CreateJob {
  const utm = {
    ...(trimmed(f.utmSource) ? { source: f.utmSource.trim() } : {}),
    ...(trimmed(f.utmMedium) ? { medium: f.utmMedium.trim() } : {}),
    ...(trimmed(f.utmCampaign) ? { campaign: f.utmCampaign.trim() } : {}),
  };
  const options: CreateJob['options'] = {
    hashtags: f.hashtags,
    ...(trimmed(f.tone) ? { tone: f.tone.trim() } : {}),
    ...(trimmed(f.language) ? { language: f.language.trim() } : {}),
    ...(trimmed(f.cta) ? { cta: f.cta.trim() } : {}),
    ...(trimmed(f.link) ? { link: f.link.trim() } : {}),
    ...(Object.keys(utm).length ? { utm } : {}),
  };
  const schedule = f.firstAt
    ? // The browser reads a datetime-local value in its own zone; the server gets the instant with its offset.
      { first_at: new Date(f.firstAt).toISOString(), spacing_minutes: Number(f.spacing) || 60 }
    : undefined;
  return {
    brand_id: f.brandId,
    source: source(f),
    targets: f.targets,
    options,
    output:
      f.mode === 'draft'
        ? { mode: 'draft' }
        : f.mode === 'approval'
          ? { mode: 'approval', ...(schedule ? { schedule } : {}) }
          : { mode: 'schedule', ...(schedule ? { schedule } : {}) },
  } as CreateJob;
}

export function describeSource(s: Job['source']): string {
  if (s.type === 'url') return s.url ?? 'a page';
  if (s.type === 'text') return s.title ? `Text: ${s.title}` : 'Pasted text';
  if (s.type === 'post') return `Post ${s.post_id ?? ''}`;
  return `Video ${s.media_id ?? ''}`;
}

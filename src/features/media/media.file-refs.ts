// Files a custom GPT action sends from its conversation (`openaiFileIdRefs`, docs/gpt-actions.md): each reference
// names a short-lived `download_link` on the action platform's file host. Herald accepts a link only from a host
// of HERALD_ACTIONS_FILE_HOSTS, over https, and only while it is valid, and then treats it as media by URL
// (media.from-url.ts): the fetch job goes through the same SSRF guard and the same checks as any other URL.
import { Type, type Static } from 'typebox';
import { AppError } from '../../app/errors.ts';
import { named } from '../../app/envelope.ts';

export const FILE_REF_EXAMPLE = {
  name: 'launch.png',
  id: 'file-XFlOqJYTPBPwMZE3IopCBv1Z',
  mime_type: 'image/png',
  download_link: 'https://files.oaiusercontent.com/file-XFlOqJYTPBPwMZE3IopCBv1Z?se=2026-12-01T09%3A05%3A00Z&sig=abc',
};

export const FileRef = named(
  'OpenAiFileRef',
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 255, description: 'The file name, kept with the media.' }),
      id: Type.String({ minLength: 1, maxLength: 255, description: "The action platform's id of the file." }),
      mime_type: Type.Optional(
        Type.String({ maxLength: 255, description: 'As the platform guessed it; Herald sniffs the bytes anyway.' }),
      ),
      download_link: Type.String({
        minLength: 8,
        maxLength: 4096,
        description: 'Where to fetch the file: an https URL on an allowed file host, valid for a few minutes.',
      }),
    },
    { additionalProperties: true },
  ),
  FILE_REF_EXAMPLE,
);
export type FileRef = Static<typeof FileRef>;

/** The field as posts and media take it: at most ten files, as the action platform sends at most ten. */
export function FileRefList(maxItems: number, what: string) {
  return Type.Array(FileRef, {
    minItems: 1,
    maxItems,
    description: `Files from the conversation (${what}), filled in by a custom GPT action; each is fetched as media by URL.`,
  });
}

/** Whether `host` is one of `allowed`: a name exactly, or any subdomain of an entry written `.example.com`. */
export function fileHostAllowed(host: string, allowed: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return allowed.some((entry) => (entry.startsWith('.') ? h.endsWith(entry) && h.length > entry.length : h === entry));
}

/**
 * The URL and file name to fetch for each reference, or a 422 naming the first reference Herald will not fetch:
 * not https, a host outside the allow-list, or a link whose signed expiry (`se`, as the platform's storage signs
 * it) has passed.
 */
export function fileRefSources(
  refs: readonly FileRef[],
  allowedHosts: readonly string[],
  now: Date,
  path: string,
): Array<{ url: string; filename: string }> {
  return refs.map((ref, i) => {
    const refuse = (rule: string, message: string) =>
      new AppError('PUBLIC_API_VALIDATION_FAILED', `File ${ref.name}: ${message}`, {
        details: [{ path: `${path}/${i}/download_link`, rule, message, platform: null }],
      });
    let url: URL;
    try {
      url = new URL(ref.download_link);
    } catch {
      throw refuse('file_link_invalid', 'the download_link is not a URL.');
    }
    if (url.protocol !== 'https:') throw refuse('file_link_not_https', 'the download_link must be https.');
    if (!fileHostAllowed(url.hostname, allowedHosts))
      throw refuse(
        'file_host_not_allowed',
        `${url.hostname} is not an allowed file host (HERALD_ACTIONS_FILE_HOSTS: ${allowedHosts.join(', ') || 'none'}).`,
      );
    const expires = url.searchParams.get('se');
    if (expires !== null && !Number.isNaN(Date.parse(expires)) && Date.parse(expires) <= now.getTime())
      throw refuse('file_link_expired', 'the download_link has expired; send the file again.');
    return { url: url.toString(), filename: ref.name.split(/[/\\]/).pop() || ref.name };
  });
}

// Media upload through the signed-URL flow (docs/api.md "Media") with progress: the client asks for the URL, the
// bytes go in one XMLHttpRequest PUT (fetch reports no upload progress), then the media is followed to `ready`.
import type { components, Herald } from '@herald/client';
import { HeraldError } from './api.ts';

type Media = components['schemas']['Media'];

function putWithProgress(
  url: string,
  headers: Record<string, string>,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<{ status: number; body: string; requestId: string | null }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () =>
      resolve({ status: xhr.status, body: xhr.responseText, requestId: xhr.getResponseHeader('x-request-id') });
    xhr.onerror = () =>
      reject(new HeraldError({ status: 0, code: 'CLIENT_UPLOAD_FAILED', message: 'The upload was interrupted.' }));
    xhr.send(file);
  });
}

function parse(body: string): { data?: { object?: string }; error?: { code?: string; message?: string } } {
  try {
    return JSON.parse(body) as { data?: { object?: string }; error?: { code?: string; message?: string } };
  } catch {
    return {};
  }
}

export async function uploadWithProgress(
  herald: Herald,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<Media> {
  const ticket = await herald.POST('/media/upload-url', {
    body: { filename: file.name, content_type: file.type || 'application/octet-stream', size_bytes: file.size },
  });
  const put = await putWithProgress(ticket.upload.signed_url, ticket.upload.headers, file, onProgress);
  const answer = parse(put.body);
  if (put.status < 200 || put.status >= 300) {
    throw new HeraldError({
      status: put.status,
      code: answer.error?.code ?? 'CLIENT_UPLOAD_FAILED',
      message: answer.error?.message ?? `The upload was refused (HTTP ${put.status}).`,
      request_id: put.requestId,
    });
  }
  const id = ticket.media_id;
  let media =
    answer.data?.object === 'media'
      ? (answer.data as Media)
      : await herald.POST('/media/{id}/complete', { params: { path: { id } } });
  const deadline = Date.now() + 120_000;
  for (let every = 200; media.status !== 'ready'; every = Math.min(every * 2, 2000)) {
    if (media.status === 'failed') {
      throw new HeraldError({
        status: 0,
        code: 'CLIENT_MEDIA_FAILED',
        message: media.failure_reason ?? 'Herald refused the file.',
      });
    }
    if (Date.now() > deadline) {
      throw new HeraldError({
        status: 0,
        code: 'CLIENT_TIMEOUT',
        message: `The file is still ${media.status}; try again.`,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, every));
    media = await herald.GET('/media/{id}', { params: { path: { id } } });
  }
  return media;
}

// Errors as typed exceptions: every answer outside 2xx becomes a HeraldError carrying the envelope's fields.

/** One problem of a failed request: a JSON Pointer into the input and what is wrong there. */
export interface HeraldErrorDetail {
  path?: string;
  message: string;
  /** On 422 PUBLIC_API_VALIDATION_FAILED: the platform whose rule failed, and the rule's stable name. */
  platform?: string;
  rule?: string;
  [key: string]: unknown;
}

export interface HeraldErrorInit {
  status: number;
  code: string;
  message: string;
  details?: HeraldErrorDetail[];
  request_id?: string | null;
  retryable?: boolean;
  doc_url?: string | null;
  cause?: unknown;
}

/**
 * A request Herald refused, or one the client could not complete. `code` is what to branch on: Herald's own codes
 * (`PUBLIC_API_…`, listed in the API reference) for answers of the server, and `CLIENT_…` for failures on this side
 * (`CLIENT_NETWORK_ERROR`, `CLIENT_INVALID_RESPONSE`, `CLIENT_UPLOAD_FAILED`, `CLIENT_MEDIA_FAILED`,
 * `CLIENT_TIMEOUT`), which have `status` 0 unless an HTTP answer was received.
 */
export class HeraldError extends Error {
  override readonly name = 'HeraldError';
  readonly status: number;
  readonly code: string;
  readonly details: HeraldErrorDetail[];
  readonly request_id: string | null;
  readonly retryable: boolean;
  readonly doc_url: string | null;

  constructor(init: HeraldErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.request_id = init.request_id ?? null;
    this.retryable = init.retryable ?? false;
    this.doc_url = init.doc_url ?? null;
  }

  /** Builds the error from an answer's status, headers and (already parsed, if any) body. */
  static from(response: Response, body: unknown): HeraldError {
    const requestId = response.headers.get('x-request-id');
    const envelope = body as { error?: unknown; request_id?: unknown } | null | undefined;
    const error = envelope && typeof envelope === 'object' ? envelope.error : undefined;
    if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string') {
      const e = error as {
        code: string;
        message?: unknown;
        details?: unknown;
        retryable?: unknown;
        doc_url?: unknown;
      };
      return new HeraldError({
        status: response.status,
        code: e.code,
        message: typeof e.message === 'string' ? e.message : e.code,
        details: Array.isArray(e.details) ? (e.details as HeraldErrorDetail[]) : [],
        request_id: typeof envelope?.request_id === 'string' ? envelope.request_id : requestId,
        retryable: e.retryable === true,
        doc_url: typeof e.doc_url === 'string' ? e.doc_url : null,
      });
    }
    return new HeraldError({
      status: response.status,
      code: 'CLIENT_INVALID_RESPONSE',
      message: `HTTP ${response.status} ${response.statusText} without an error envelope`,
      request_id: requestId,
      retryable: response.status >= 500,
    });
  }

  /** Reads the body of an answer outside 2xx and builds the error from it. */
  static async fromResponse(response: Response): Promise<HeraldError> {
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return HeraldError.from(response, body);
  }
}

import { basicHeader, type Session } from './session';

/** An error answer of the API (`{status, code, message, details}`), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: { errors?: Array<{ field: string; message?: string }> } & Record<string, unknown>,
  ) {
    super(message);
  }
  /** One line for a person: the message and the fields it names. */
  describe(): string {
    const fields = this.details?.errors?.map((e) => `${e.field}${e.message ? `: ${e.message}` : ''}`) ?? [];
    return fields.length ? `${this.message} (${fields.join('; ')})` : this.message;
  }
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
}

export type Query = Record<string, string | number | undefined | null>;

/**
 * The public API, called with the session's Basic credentials, exactly as a platform would.
 * A 401 signs the session out (revoked or wrong credentials).
 */
export class Api {
  constructor(
    readonly base: string,
    private readonly session: Session,
    private readonly fetchImpl: typeof fetch = (...a) => fetch(...a),
  ) {}

  url(path: string, query?: Query): string {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
    const s = qs.toString();
    return `${this.base}${path}${s ? `?${s}` : ''}`;
  }

  async request<T>(method: string, path: string, opts: { query?: Query; body?: unknown; idempotent?: boolean; credentials?: { clientId: string; clientSecret: string } } = {}): Promise<T> {
    const creds = opts.credentials ?? this.session.credentials();
    if (!creds) throw new ApiError(401, 'UNAUTHORIZED', 'Not signed in.');
    const headers: Record<string, string> = { authorization: basicHeader(creds), accept: 'application/json', 'x-requested-with': 'svc-dashboard' };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.idempotent) headers['idempotency-key'] = crypto.randomUUID();
    let res: Response;
    try {
      res = await this.fetchImpl(this.url(path, opts.query), { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer' });
    } catch {
      throw new ApiError(0, 'NETWORK_ERROR', 'The server could not be reached.');
    }
    const text = await res.text();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!res.ok) {
      const err = new ApiError(res.status, body?.code ?? 'HTTP_ERROR', body?.message ?? `HTTP ${res.status}`, body?.details);
      if (res.status === 401 && !opts.credentials) this.session.signOut('The server refused the credentials (deleted or changed token). Sign in again.');
      throw err;
    }
    return body as T;
  }

  get<T>(path: string, query?: Query) {
    return this.request<T>('GET', path, { query });
  }
  post<T>(path: string, body?: unknown, idempotent = false) {
    return this.request<T>('POST', path, { body, idempotent });
  }
  patch<T>(path: string, body: unknown) {
    return this.request<T>('PATCH', path, { body });
  }

  /** Follows `nextCursor` up to `maxPages` pages; `complete` says whether everything was read. */
  async all<T>(path: string, query: Query, maxPages = 10): Promise<{ items: T[]; complete: boolean }> {
    const items: T[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < maxPages; i++) {
      const page = await this.get<Page<T>>(path, { ...query, limit: 100, cursor });
      items.push(...page.data);
      if (!page.hasMore || !page.nextCursor) return { items, complete: true };
      cursor = page.nextCursor;
    }
    return { items, complete: false };
  }
}

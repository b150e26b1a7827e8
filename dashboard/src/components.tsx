import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError, type Page, type Query } from './api';
import { formatDateTime, formatMoney, type Currency } from './format';
import { useApp } from './context';

export function Money({ amount, currency }: { amount: number | string | bigint | null | undefined; currency: Currency | string | null | undefined }) {
  if (amount === null || amount === undefined || !currency) return <span className="muted">—</span>;
  return <span className="money">{formatMoney(amount, currency)}</span>;
}

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span className="muted">—</span>;
  return <time dateTime={iso}>{formatDateTime(iso)}</time>;
}

const TONE: Record<string, string> = {
  COMPLETED: 'ok', APPROVED: 'ok', DELIVERED: 'ok', ACTIVE: 'ok', SUCCEEDED: 'ok',
  FAILED: 'bad', REJECTED: 'bad', EXPIRED: 'bad', UNDELIVERABLE: 'bad', INACTIVE: 'bad',
  PENDING: 'wait', PROCESSING: 'wait', PENDING_AUTHORIZATION: 'wait', UNVERIFIED: 'wait', HOLD: 'warn', UNDER_REVIEW: 'warn',
};

export function Status({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  return <span className={`badge ${TONE[value] ?? ''}`} data-status={value}>{value.replaceAll('_', ' ')}</span>;
}

export function ErrorBox({ error, retry }: { error: unknown; retry?: () => void }) {
  const msg = error instanceof ApiError ? `${error.describe()} [${error.code}]` : error instanceof Error ? error.message : String(error);
  return (
    <div className="error" role="alert">
      <strong>Something went wrong.</strong> {msg}
      {retry && (
        <button type="button" className="link" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function Loading() {
  return (
    <p className="loading" role="status" aria-live="polite">
      Loading…
    </p>
  );
}

/** Runs `load` on mount and when `deps` change; exposes data, error and reload. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data?: T; error?: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const run = useCallback(() => {
    const n = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => n === seq.current && setState({ data, loading: false }),
      (error) => n === seq.current && setState({ error, loading: false }),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(() => {
    run();
  }, [run]);
  return { ...state, reload: run };
}

/** One list page at a time, following `nextCursor`; Previous walks back the cursors seen. */
export function usePaged<T>(path: string, query: Query, limit = 20) {
  const { api } = useApp();
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const key = JSON.stringify(query);
  useEffect(() => setCursors([undefined]), [key, path]);
  const cursor = cursors[cursors.length - 1];
  // Each result remembers the query it answers, so the page (and tests) can tell a stale list from a fresh one.
  const res = useLoad(async () => ({ query: key, page: await api.get<Page<T>>(path, { ...query, limit, cursor }) }), [path, key, cursor]);
  return {
    ...res,
    data: res.data?.page,
    /** The query (JSON) the shown rows were loaded for. */
    loadedQuery: res.data?.query,
    page: cursors.length,
    next: () => res.data?.page.nextCursor && setCursors((c) => [...c, res.data!.page.nextCursor]),
    prev: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
  };
}

export function Pager({ page, hasMore, next, prev }: { page: number; hasMore: boolean; next: () => void; prev: () => void }) {
  return (
    <nav className="pager" aria-label="Pagination">
      <button type="button" onClick={prev} disabled={page <= 1}>
        ← Previous
      </button>
      <span>Page {page}</span>
      <button type="button" onClick={next} disabled={!hasMore}>
        Next →
      </button>
    </nav>
  );
}

export function Field({ label, children, hint }: { label: string; children: ReactNode; hint?: string }) {
  return (
    <label className="field">
      <span>{label}</span>
      {children}
      {hint && <small className="muted">{hint}</small>}
    </label>
  );
}

export function Dl({ rows }: { rows: Array<[string, ReactNode]> }) {
  return (
    <dl className="dl">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v ?? <span className="muted">—</span>}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="card" aria-label={title}>
      <header className="card-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

export function Copyable({ text }: { text: string }) {
  return <code className="mono">{text}</code>;
}

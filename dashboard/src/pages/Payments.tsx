import { useEffect, useState, type FormEvent } from 'react';
import { Dl, Empty, ErrorBox, Loading, Money, Pager, Section, Status, Time, useLoad, usePaged } from '../components';
import { useApp } from '../context';
import { formatDateTime, localDateToIso } from '../format';
import { href, navigate } from '../router';
import { TRANSACTION_STATUSES, type Quote, type Transaction, type WebhookEvent } from '../types';
import type { Page } from '../api';
import type { CardTransaction } from './Cards';

const FILTERS = ['status', 'from', 'to', 'customerId', 'currency'] as const;

export function Payments({ query }: { query: URLSearchParams }) {
  const f = Object.fromEntries(FILTERS.map((k) => [k, query.get(k) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const [draft, setDraft] = useState(f);
  useEffect(() => setDraft(f), [query.toString()]); // eslint-disable-line react-hooks/exhaustive-deps
  const list = usePaged<Transaction>('/transactions', {
    status: f.status || undefined,
    startDate: f.from ? localDateToIso(f.from) : undefined,
    endDate: f.to ? localDateToIso(f.to, true) : undefined,
    customerId: f.customerId || undefined,
    currency: f.currency || undefined,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate('/payments', Object.fromEntries(Object.entries(draft).map(([k, v]) => [k, v.trim() || undefined])));
  };
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));

  return (
    <>
      <h1>Payments</h1>
      <form className="filters" onSubmit={submit} aria-label="Payment filters">
        <label className="field">
          <span>Status</span>
          <select name="status" value={draft.status} onChange={set('status')}>
            <option value="">Any</option>
            {TRANSACTION_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>From</span>
          <input type="date" name="from" value={draft.from} onChange={set('from')} />
        </label>
        <label className="field">
          <span>To</span>
          <input type="date" name="to" value={draft.to} onChange={set('to')} />
        </label>
        <label className="field grow">
          <span>Customer id</span>
          <input name="customerId" placeholder="Customer:…" value={draft.customerId} onChange={set('customerId')} spellCheck={false} />
        </label>
        <label className="field">
          <span>Currency</span>
          <input name="currency" placeholder="USD" value={draft.currency} onChange={(e) => setDraft((d) => ({ ...d, currency: e.target.value.toUpperCase() }))} maxLength={5} size={6} />
        </label>
        <button type="submit">Apply</button>
      </form>
      {list.error ? (
        <ErrorBox error={list.error} retry={list.reload} />
      ) : list.loading && !list.data ? (
        <Loading />
      ) : !list.data?.data.length ? (
        <Empty>No payment matches these filters.</Empty>
      ) : (
        <div data-query={list.loadedQuery}>
          <PaymentsTable rows={list.data.data} />
          <Pager page={list.page} hasMore={list.data.hasMore} next={list.next} prev={list.prev} />
        </div>
      )}
    </>
  );
}

export function PaymentsTable({ rows }: { rows: Transaction[] }) {
  return (
    <div className="table-wrap">
      <table data-testid="payments">
        <thead>
          <tr>
            <th scope="col">Payment</th>
            <th scope="col">Status</th>
            <th scope="col" className="num">Sent</th>
            <th scope="col" className="num">Received</th>
            <th scope="col">Customer</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (t.type === 'CARD' ? <CardPaymentRow key={t.id} t={t as unknown as CardTransaction} /> : (
            <tr key={t.id} data-id={t.id}>
              <td>
                <a href={href(`/payments/${t.id}`)} className="mono">
                  {t.id.slice(-12)}
                </a>
              </td>
              <td>
                <Status value={t.status} />
                {t.refund && <span className="muted"> refund {t.refund.status.toLowerCase()}</span>}
              </td>
              <td className="num">
                <Money amount={t.sentAmount?.amount} currency={t.sentAmount?.currency} />
              </td>
              <td className="num">
                <Money amount={t.receivedAmount?.amount} currency={t.receivedAmount?.currency} />
              </td>
              <td>{t.customerId ? <a href={href(`/customers/${t.customerId}`)}>{t.platformCustomerId ?? t.customerId}</a> : <span className="muted">platform</span>}</td>
              <td>
                <Time iso={t.createdAt} />
              </td>
            </tr>
          )))}
        </tbody>
      </table>
    </div>
  );
}

/** A card transaction in the payments list (issue 27: the unfiltered list holds them): links to its card. */
function CardPaymentRow({ t }: { t: CardTransaction }) {
  return (
    <tr data-id={t.id}>
      <td>
        <a href={href(`/cards/${t.cardId}`)}>card · {t.merchant.descriptor}</a>
      </td>
      <td>
        <Status value={t.status} />
      </td>
      <td className="num">
        <Money amount={t.authorizedAmount.amount} currency={t.authorizedAmount.currency} />
      </td>
      <td className="num" />
      <td>{t.customerId ? <a href={href(`/customers/${t.customerId}`)}>{t.platformCustomerId ?? t.customerId}</a> : null}</td>
      <td>
        <Time iso={t.authorizedAt} />
      </td>
    </tr>
  );
}

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'EXPIRED']);

export function PaymentPage({ id }: { id: string }) {
  const { api, can } = useApp();
  const [tick, setTick] = useState(0);
  const tx = useLoad(() => api.get<Transaction>(`/transactions/${encodeURIComponent(id)}`), [api, id, tick]);
  const quoteId = tx.data?.quoteId;
  const quote = useLoad(async () => (quoteId ? api.get<Quote>(`/quotes/${encodeURIComponent(quoteId)}`) : undefined), [api, quoteId, tick]);
  const events = useLoad(() => api.get<Page<WebhookEvent>>('/webhook-events', { resourceId: id, limit: 100 }), [api, id, tick]);
  const [action, setAction] = useState<{ busy?: boolean; error?: unknown }>({});

  // While the payment moves (or its refund is open), read it again every two seconds.
  const live = tx.data && (!TERMINAL.has(tx.data.status) || tx.data.refund?.status === 'PENDING');
  useEffect(() => {
    if (!live) return;
    const t = window.setTimeout(() => setTick((n) => n + 1), 2_000);
    return () => window.clearTimeout(t);
  }, [live, tx.data]);

  if (tx.error) return <ErrorBox error={tx.error} retry={tx.reload} />;
  if (!tx.data) return <Loading />;
  const t = tx.data;
  const q = quote.data;
  const canExecute = can('TRANSACT') && t.status === 'PENDING' && q?.status === 'PENDING';
  const canCancel = can('TRANSACT') && (t.status === 'PENDING' || t.status === 'PROCESSING');

  const act = async (fn: () => Promise<unknown>) => {
    setAction({ busy: true });
    try {
      await fn();
      setAction({});
      setTick((n) => n + 1);
    } catch (error) {
      setAction({ error });
    }
  };

  const timeline = buildTimeline(t, events.data?.data ?? []);

  return (
    <>
      <p className="crumbs">
        <a href={href('/payments')}>Payments</a> /
      </p>
      <h1>
        Payment <span className="mono small">{t.id}</span>
      </h1>
      <div className="status-line">
        <Status value={t.status} />
        {t.failureReason && <span className="muted">reason: {t.failureDetail ?? t.failureReason}</span>}
        {live && <span className="muted">updating…</span>}
      </div>
      {(canExecute || canCancel) && (
        <div className="actions">
          {canExecute && (
            <button type="button" className="primary" disabled={action.busy} onClick={() => act(() => api.post(`/quotes/${encodeURIComponent(q!.id)}/execute`, undefined, true))}>
              Execute payment
            </button>
          )}
          {canCancel && (
            <button type="button" disabled={action.busy} onClick={() => window.confirm('Cancel this payment?') && act(() => api.post(`/transactions/${encodeURIComponent(t.id)}/cancel`, {}, true))}>
              Cancel payment
            </button>
          )}
        </div>
      )}
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <div className="grid">
        <Section title="Amounts">
          <Dl
            rows={[
              ['Sent', <Money amount={t.sentAmount.amount} currency={t.sentAmount.currency} />],
              ['Received', <Money amount={t.receivedAmount.amount} currency={t.receivedAmount.currency} />],
              ['Exchange rate', `1 ${t.sentAmount.currency.code} = ${t.exchangeRate} ${t.receivedAmount.currency.code}`],
              ['Fees (all)', <Money amount={t.fees} currency={t.sentAmount.currency} />],
              ['Platform fee', <Money amount={t.platformFees} currency={t.sentAmount.currency} />],
              ['Rail', t.paymentRail],
              ['Customer', t.customerId ? <a href={href(`/customers/${t.customerId}`)}>{t.platformCustomerId ?? t.customerId}</a> : 'platform'],
              ['Description', t.description],
              ['Created', <Time iso={t.createdAt} />],
              ['Settled', <Time iso={t.settledAt} />],
            ]}
          />
        </Section>
        <Section title="Quote">
          {!t.quoteId ? (
            <Empty>No quote (incoming payment).</Empty>
          ) : quote.error ? (
            <ErrorBox error={quote.error} retry={quote.reload} />
          ) : !q ? (
            <Loading />
          ) : (
            <Dl
              rows={[
                ['Quote', <code className="mono">{q.id}</code>],
                ['Status', <Status value={q.status} />],
                ['Total sending', <Money amount={q.totalSendingAmount} currency={q.sendingCurrency} />],
                ['Total receiving', <Money amount={q.totalReceivingAmount} currency={q.receivingCurrency} />],
                ['Rate', String(q.exchangeRate)],
                ['Fees included', <Money amount={q.feesIncluded} currency={q.sendingCurrency} />],
                ['Platform fees included', <Money amount={q.platformFeesIncluded} currency={q.sendingCurrency} />],
                ['Expires', <Time iso={q.expiresAt} />],
              ]}
            />
          )}
        </Section>
        <Section title="Refund">
          {!t.refund ? (
            <Empty>No refund.</Empty>
          ) : (
            <div data-testid="refund">
              <Dl
                rows={[
                  ['Refund status', <Status value={t.refund.status} />],
                  ['Reason', t.refund.reason],
                  ['Reference', t.refund.reference],
                  ['Initiated', <Time iso={t.refund.initiatedAt} />],
                  ['Settled', <Time iso={t.refund.settledAt} />],
                ]}
              />
            </div>
          )}
        </Section>
        <Section title="Status timeline">
          <ol className="timeline" data-testid="timeline">
            {timeline.map((e, i) => (
              <li key={i}>
                <span className="dot" aria-hidden="true" />
                <strong>{e.label}</strong> <span className="muted">{formatDateTime(e.at)}</span>
              </li>
            ))}
          </ol>
        </Section>
      </div>
      <Section title="Webhook events">
        {events.error ? (
          <ErrorBox error={events.error} retry={events.reload} />
        ) : !events.data ? (
          <Loading />
        ) : !events.data.data.length ? (
          <Empty>No webhook events for this payment yet.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Delivery</th>
                <th scope="col">Attempts</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              {events.data.data.map((e) => (
                <tr key={e.id}>
                  <td>
                    <a href={href('/webhooks', { event: e.id })}>{e.type}</a>
                  </td>
                  <td>
                    <Status value={e.deliveryStatus} />
                  </td>
                  <td>{e.attemptCount}</td>
                  <td>
                    <Time iso={e.timestamp} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}

/** Created, each status event the payment produced, settlement and refund, oldest first. */
export function buildTimeline(t: Transaction, events: WebhookEvent[]): Array<{ label: string; at: string }> {
  const out: Array<{ label: string; at: string }> = [{ label: 'Created', at: t.createdAt }];
  for (const e of [...events].sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.id < b.id ? -1 : 1))) {
    const status = String((e.data as { status?: unknown }).status ?? '');
    out.push({ label: `${e.type}${status && !e.type.endsWith(status) ? ` (${status})` : ''}`, at: e.timestamp });
  }
  if (t.settledAt) out.push({ label: 'Settled', at: t.settledAt });
  if (t.refund?.initiatedAt) out.push({ label: 'Refund initiated', at: t.refund.initiatedAt });
  if (t.refund?.settledAt) out.push({ label: `Refund ${t.refund.status.toLowerCase()}`, at: t.refund.settledAt });
  return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}


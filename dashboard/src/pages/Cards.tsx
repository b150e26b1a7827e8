import { useState, type ReactNode } from 'react';
import { Dl, Empty, ErrorBox, Loading, Money, Pager, Section, Status, Time, useLoad, usePaged } from '../components';
import { useApp } from '../context';
import { href } from '../router';
import type { Amount, WebhookEvent } from '../types';
import type { Page } from '../api';

/** A card as GET /cards answers it (issue 27). */
interface Card {
  id: string;
  cardholderId: string;
  platformCardId: string | null;
  form: string;
  state: string;
  stateReason: string | null;
  currency: string;
  fundingSources: string[];
  maxSpendPerTransaction: number | null;
  brand?: string;
  last4?: string;
  expMonth?: number;
  expYear?: number;
  createdAt: string;
}

type Summary = { count: number; totalAmount: number };

/** REF's CardTransaction (`type: CARD` in GET /transactions). */
export interface CardTransaction {
  id: string;
  type: 'CARD';
  cardId: string;
  customerId: string;
  platformCustomerId: string | null;
  status: string;
  declineReason?: string;
  direction: string;
  merchant: { descriptor: string; mcc?: string; country?: string };
  authorizedAmount: Amount;
  settledAmount: Amount;
  refundedAmount: Amount;
  accountId: string;
  fundingCurrency?: string;
  pullSummary: Summary & { pendingCount: number };
  settlementSummary: Summary;
  refundSummary: Summary;
  exceptionAmount?: number;
  authorizedAt: string;
  lastEventAt: string;
}

const cardName = (c: Card) => (c.last4 ? `${c.brand ?? 'Card'} ···· ${c.last4}` : c.platformCardId ?? c.id.slice(-12));
const code = (a: Amount) => a.currency.code;
/** Still held on the funding source: what was authorized and has not cleared (an open authorization). */
const holding = (t: CardTransaction) => t.status === 'AUTHORIZED' || t.status === 'PARTIALLY_SETTLED';

export function Cards() {
  const list = usePaged<Card>('/cards', {});
  return (
    <>
      <h1>Cards</h1>
      {list.error ? (
        <ErrorBox error={list.error} retry={list.reload} />
      ) : list.loading && !list.data ? (
        <Loading />
      ) : !list.data?.data.length ? (
        <Empty>No card yet.</Empty>
      ) : (
        <div className="table-wrap">
          <table data-testid="cards">
            <thead>
              <tr>
                <th scope="col">Card</th>
                <th scope="col">State</th>
                <th scope="col">Currency</th>
                <th scope="col">Cardholder</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={c.id} data-id={c.id}>
                  <td>
                    <a href={href(`/cards/${c.id}`)}>{cardName(c)}</a>
                  </td>
                  <td>
                    <Status value={c.state} />
                  </td>
                  <td>{c.currency}</td>
                  <td>
                    <a href={href(`/customers/${c.cardholderId}`)}>{c.cardholderId.slice(-12)}</a>
                  </td>
                  <td>
                    <Time iso={c.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={list.page} hasMore={list.data.hasMore} next={list.next} prev={list.prev} />
        </div>
      )}
    </>
  );
}

export function CardPage({ id }: { id: string }) {
  const { api } = useApp();
  const card = useLoad(() => api.get<Card>(`/cards/${encodeURIComponent(id)}`), [api, id]);
  const txs = usePaged<CardTransaction>('/transactions', { cardId: id });
  const [open, setOpen] = useState<string>();
  if (card.error) return <ErrorBox error={card.error} retry={card.reload} />;
  if (!card.data) return <Loading />;
  const c = card.data;
  return (
    <>
      <p className="crumbs">
        <a href={href('/cards')}>Cards</a> /
      </p>
      <h1>
        {cardName(c)} <span className="mono small">{c.id}</span>
      </h1>
      <div className="status-line">
        <Status value={c.state} />
        {c.stateReason && <span className="muted">reason: {c.stateReason}</span>}
      </div>
      <Section title="Card">
        <Dl
          rows={[
            ['Cardholder', <a href={href(`/customers/${c.cardholderId}`)}>{c.cardholderId}</a>],
            ['Form', c.form],
            ['Currency', c.currency],
            ['Funding sources', c.fundingSources.join(', ')],
            ['Limit per transaction', c.maxSpendPerTransaction === null ? 'none' : <Money amount={c.maxSpendPerTransaction} currency={c.currency} />],
            ['Expires', c.expMonth && c.expYear ? `${String(c.expMonth).padStart(2, '0')}/${c.expYear}` : null],
            ['Created', <Time iso={c.createdAt} />],
          ]}
        />
      </Section>
      <Section title="Transactions">
        {txs.error ? (
          <ErrorBox error={txs.error} retry={txs.reload} />
        ) : txs.loading && !txs.data ? (
          <Loading />
        ) : !txs.data?.data.length ? (
          <Empty>This card has no transaction yet.</Empty>
        ) : (
          <div className="table-wrap">
            <table data-testid="card-transactions">
              <thead>
                <tr>
                  <th scope="col">Merchant</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">Authorized</th>
                  <th scope="col" className="num">Held</th>
                  <th scope="col" className="num">Cleared</th>
                  <th scope="col" className="num">Refunded</th>
                  <th scope="col">Authorized at</th>
                </tr>
              </thead>
              <tbody>
                {txs.data.data.map((t) => (
                  <CardTransactionRow key={t.id} t={t} open={open === t.id} toggle={() => setOpen(open === t.id ? undefined : t.id)} />
                ))}
              </tbody>
            </table>
            <Pager page={txs.page} hasMore={txs.data.hasMore} next={txs.next} prev={txs.prev} />
          </div>
        )}
      </Section>
    </>
  );
}

function CardTransactionRow({ t, open, toggle }: { t: CardTransaction; open: boolean; toggle: () => void }) {
  const currency = code(t.authorizedAmount);
  // Money on bigint only (format.ts): what is authorized and not yet cleared.
  const held = holding(t) ? BigInt(t.authorizedAmount.amount) - BigInt(t.settledAmount.amount) : 0n;
  return (
    <>
      <tr data-id={t.id}>
        <td>
          <button type="button" className="link" aria-expanded={open} onClick={toggle}>
            {t.merchant.descriptor}
          </button>
          {t.direction === 'CREDIT' && <span className="muted"> credit</span>}
        </td>
        <td>
          <Status value={t.status} />
          {t.declineReason && <span className="muted"> {t.declineReason}</span>}
        </td>
        <td className="num">
          <Money amount={t.authorizedAmount.amount} currency={currency} />
        </td>
        <td className="num" data-testid="held">
          <Money amount={held} currency={currency} />
        </td>
        <td className="num">
          <Money amount={t.settledAmount.amount} currency={currency} /> <span className="muted">({t.settlementSummary.count})</span>
        </td>
        <td className="num">
          <Money amount={t.refundedAmount.amount} currency={currency} /> <span className="muted">({t.refundSummary.count})</span>
        </td>
        <td>
          <Time iso={t.authorizedAt} />
        </td>
      </tr>
      {open && (
        <tr className="detail">
          <td colSpan={7}>
            <CardTransactionTimeline t={t} />
          </td>
        </tr>
      )}
    </>
  );
}

/** The transaction's life as its webhooks tell it: the hold, each clearing, each refund, an exception. */
function CardTransactionTimeline({ t }: { t: CardTransaction }) {
  const { api } = useApp();
  const events = useLoad(() => api.get<Page<WebhookEvent>>('/webhook-events', { resourceId: t.id, limit: 100 }), [api, t.id]);
  if (events.error) return <ErrorBox error={events.error} retry={events.reload} />;
  if (!events.data) return <Loading />;
  const rows = [...events.data.data].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  return (
    <div data-testid="card-timeline">
      <Dl
        rows={[
          ['Transaction', <span className="mono">{t.id}</span>],
          ['Funding source', t.accountId],
          ['Pulls', `${t.pullSummary.count} (${t.pullSummary.pendingCount} pending)`],
          ...(t.exceptionAmount ? ([['Exception (platform receivable)', <Money amount={t.exceptionAmount} currency={t.fundingCurrency ?? code(t.authorizedAmount)} />]] as Array<[string, ReactNode]>) : []),
        ]}
      />
      {rows.length === 0 ? (
        <p className="muted">No event was sent for this transaction.</p>
      ) : (
        <ol className="timeline">
          {rows.map((e) => (
            <li key={e.id}>
              <Status value={e.type.replace('CARD_TRANSACTION.', '')} /> <Time iso={e.timestamp} />
              {typeof e.data.settledAmount === 'object' && e.data.settledAmount !== null && (
                <span className="muted">
                  {' '}
                  settled <Money amount={(e.data.settledAmount as Amount).amount} currency={code(e.data.settledAmount as Amount)} />, refunded{' '}
                  <Money amount={(e.data.refundedAmount as Amount).amount} currency={code(e.data.refundedAmount as Amount)} />
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

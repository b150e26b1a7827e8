import { Copyable, Dl, Empty, ErrorBox, Loading, Money, Pager, Section, Status, Time, useLoad, usePaged } from '../components';
import { useApp } from '../context';
import { href } from '../router';
import type { InternalAccount } from '../types';
import { heldReasonText, instructionLines, railsOf, type CollectionCredit, type Coordinates, type PaymentInstructions } from '../payins';

/**
 * Issue 26 (26a): one internal account — its balances, its standing pay-in coordinates (what payers send to,
 * per rail, with their provisioning status) and the credits received on them, the held ones first.
 */
export function AccountPage({ id }: { id: string }) {
  const { api } = useApp();
  const account = useLoad(() => api.get<InternalAccount & { fundingPaymentInstructions: PaymentInstructions[] }>(`/internal-accounts/${encodeURIComponent(id)}`), [api, id]);
  const coordinates = useLoad(() => api.get<{ data: Coordinates[] }>(`/internal-accounts/${encodeURIComponent(id)}/coordinates`), [api, id]);
  const held = useLoad(() => api.get<{ data: CollectionCredit[] }>('/collection-credits', { internalAccountId: id, status: 'HELD', limit: 100 }), [api, id]);
  const credits = usePaged<CollectionCredit>('/collection-credits', { internalAccountId: id });

  if (account.error) return <ErrorBox error={account.error} retry={account.reload} />;
  if (!account.data) return <Loading />;
  const a = account.data;
  return (
    <>
      <h1>
        Internal account <span className="mono">{a.id}</span>
      </h1>
      <Section title="Account">
        <Dl
          rows={[
            ['Owner', a.customerId ? <a href={href(`/customers/${a.customerId}`)}>{a.customerId}</a> : 'Platform'],
            ['Status', <Status value={a.status} />],
            ['Available', <Money amount={a.balance.amount} currency={a.balance.currency} />],
            ['Total', <Money amount={a.totalBalance.amount} currency={a.totalBalance.currency} />],
          ]}
        />
      </Section>
      <Section title="Pay-in coordinates">
        {!a.fundingPaymentInstructions.length ? (
          <Empty>No pay-in coordinates{coordinates.data?.data.some((c) => c.status === 'PENDING') ? ' yet: they are being opened' : ''}.</Empty>
        ) : (
          <div className="cards" data-testid="funding-instructions">
            {a.fundingPaymentInstructions.map((i) => (
              <article key={railsOf(i)} className="card" aria-label={`Pay in by ${railsOf(i)}`}>
                <h3>{railsOf(i)}</h3>
                <Dl rows={instructionLines(i).map((l) => [l.label, <Copyable text={l.value} />])} />
                {i.instructionsNotes && <p className="muted">{i.instructionsNotes}</p>}
              </article>
            ))}
          </div>
        )}
        {coordinates.error ? (
          <ErrorBox error={coordinates.error} retry={coordinates.reload} />
        ) : coordinates.data?.data.length ? (
          <table aria-label="Coordinates by rail">
            <thead>
              <tr>
                <th scope="col">Rail</th>
                <th scope="col">Status</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {coordinates.data.data.map((c) => (
                <tr key={c.id}>
                  <td>{c.rail}</td>
                  <td>
                    <Status value={c.status} />
                  </td>
                  <td>
                    <Time iso={c.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
      <Section title="Held credits">
        {held.error ? (
          <ErrorBox error={held.error} retry={held.reload} />
        ) : !held.data ? (
          <Loading />
        ) : !held.data.data.length ? (
          <Empty>No held credits.</Empty>
        ) : (
          <CreditsTable rows={held.data.data} />
        )}
      </Section>
      <Section title="Credits received">
        {credits.error ? (
          <ErrorBox error={credits.error} retry={credits.reload} />
        ) : !credits.data ? (
          <Loading />
        ) : !credits.data.data.length ? (
          <Empty>No credits received on these coordinates.</Empty>
        ) : (
          <>
            <CreditsTable rows={credits.data.data} />
            <Pager page={credits.page} hasMore={credits.data.hasMore} next={credits.next} prev={credits.prev} />
          </>
        )}
      </Section>
    </>
  );
}

/** Every held credit of the platform: money that arrived and waits for the operator. */
export function HeldCredits() {
  const list = usePaged<CollectionCredit>('/collection-credits', { status: 'HELD' });
  return (
    <>
      <h1>Held pay-ins</h1>
      <p className="muted">Money that arrived on pay-in coordinates but was not credited: the account was frozen or closed, or the payer sent another currency. Each has a FAILED incoming payment (COLLECTION_FAILED); the collection provider holds the funds.</p>
      {list.error ? (
        <ErrorBox error={list.error} retry={list.reload} />
      ) : !list.data ? (
        <Loading />
      ) : !list.data.data.length ? (
        <Empty>No held credits.</Empty>
      ) : (
        <>
          <CreditsTable rows={list.data.data} withAccount />
          <Pager page={list.page} hasMore={list.data.hasMore} next={list.next} prev={list.prev} />
        </>
      )}
    </>
  );
}

function CreditsTable({ rows, withAccount }: { rows: CollectionCredit[]; withAccount?: boolean }) {
  return (
    <table aria-label="Credits">
      <thead>
        <tr>
          <th scope="col">Received</th>
          {withAccount && <th scope="col">Account</th>}
          <th scope="col">Rail</th>
          <th scope="col" className="num">Amount</th>
          <th scope="col">Status</th>
          <th scope="col">Payment</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((c) => (
          <tr key={c.id || c.providerCreditId}>
            <td>
              <Time iso={c.receivedAt} />
            </td>
            {withAccount && <td className="mono">{c.internalAccountId ? <a href={href(`/accounts/${c.internalAccountId}`)}>{c.internalAccountId.slice(-12)}</a> : '—'}</td>}
            <td>{c.rail}</td>
            <td className="num">
              <Money amount={c.amount.amount} currency={c.amount.currency} />
            </td>
            <td>
              <Status value={c.status} /> {c.status === 'HELD' && <span className="muted">{heldReasonText(c.heldReason)}</span>}
            </td>
            <td className="mono">{c.transactionId ? <a href={href(`/payments/${c.transactionId}`)}>{c.transactionId.slice(-12)}</a> : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

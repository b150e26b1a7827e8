import { useEffect, useState, type FormEvent } from 'react';
import { Dl, Empty, ErrorBox, Loading, Money, Pager, Section, Status, Time, useLoad, usePaged } from '../components';
import { useApp } from '../context';
import { href, navigate } from '../router';
import { CUSTOMER_STATUSES, customerName, customerStatus, type Customer, type InternalAccount, type Transaction } from '../types';
import { PaymentsTable } from './Payments';
import type { Page } from '../api';

export function Customers({ query }: { query: URLSearchParams }) {
  const search = query.get('search') ?? '';
  const status = query.get('status') ?? '';
  const [text, setText] = useState(search);
  useEffect(() => setText(search), [search]);
  const list = usePaged<Customer>('/customers', { search: search || undefined, status: status || undefined });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate('/customers', { search: text.trim() || undefined, status: status || undefined });
  };

  return (
    <>
      <h1>Customers</h1>
      <form className="filters" onSubmit={submit} role="search">
        <label className="field grow">
          <span>Search</span>
          <input type="search" name="search" placeholder="Name, email or platform customer id" value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <label className="field">
          <span>KYC status</span>
          <select name="status" value={status} onChange={(e) => navigate('/customers', { search: search || undefined, status: e.target.value || undefined })}>
            <option value="">Any</option>
            {CUSTOMER_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      {list.error ? (
        <ErrorBox error={list.error} retry={list.reload} />
      ) : list.loading && !list.data ? (
        <Loading />
      ) : !list.data?.data.length ? (
        <Empty>{search || status ? 'No customer matches these filters.' : 'No customers yet.'}</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table data-testid="customers" data-query={list.loadedQuery}>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Platform customer id</th>
                  <th scope="col">Email</th>
                  <th scope="col">Type</th>
                  <th scope="col">KYC</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((c) => (
                  <tr key={c.id}>
                    <td>
                      <a href={href(`/customers/${c.id}`)}>{customerName(c)}</a>
                    </td>
                    <td className="mono">{c.platformCustomerId}</td>
                    <td>{c.email ?? <span className="muted">—</span>}</td>
                    <td>{c.customerType}</td>
                    <td>
                      <Status value={customerStatus(c)} />
                    </td>
                    <td>
                      <Time iso={c.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={list.page} hasMore={list.data.hasMore} next={list.next} prev={list.prev} />
        </>
      )}
    </>
  );
}

interface ExternalAccount {
  id: string;
  status: string;
  currency: string;
  accountInfo: Record<string, any>;
  createdAt: string;
}
interface DocumentRow {
  id: string;
  documentType: string;
  status?: string;
  createdAt: string;
  fileName?: string;
}
interface Verification {
  id: string;
  verificationStatus?: string;
  status?: string;
  createdAt: string;
  updatedAt?: string;
}

export function CustomerPage({ id }: { id: string }) {
  const { api } = useApp();
  const customer = useLoad(() => api.get<Customer>(`/customers/${encodeURIComponent(id)}`), [api, id]);
  const accounts = useLoad(() => api.get<Page<InternalAccount>>('/customers/internal-accounts', { customerId: id, limit: 100 }), [api, id]);
  const external = useLoad(() => api.get<Page<ExternalAccount>>('/customers/external-accounts', { customerId: id, limit: 100 }), [api, id]);
  const documents = useLoad(() => api.get<Page<DocumentRow>>('/documents', { documentHolder: id, limit: 100 }), [api, id]);
  const verifications = useLoad(() => api.get<Page<Verification>>('/verifications', { customerId: id, limit: 100 }), [api, id]);
  const payments = usePaged<Transaction>('/transactions', { customerId: id });

  if (customer.error) return <ErrorBox error={customer.error} retry={customer.reload} />;
  if (!customer.data) return <Loading />;
  const c = customer.data;
  return (
    <>
      <p className="crumbs">
        <a href={href('/customers')}>Customers</a> /
      </p>
      <h1>{customerName(c)}</h1>
      <Section title="Customer">
        <Dl
          rows={[
            ['Id', <code className="mono">{c.id}</code>],
            ['Platform customer id', <code className="mono">{c.platformCustomerId}</code>],
            ['Type', c.customerType],
            [c.customerType === 'BUSINESS' ? 'KYB status' : 'KYC status', <Status value={customerStatus(c)} />],
            ['Email', c.email],
            ['Phone', c.phoneNumber],
            ['Region', c.region],
            ['Currencies', c.currencies?.join(', ')],
            ['UMA address', c.umaAddress],
            ['Created', <Time iso={c.createdAt} />],
            ['Updated', <Time iso={c.updatedAt} />],
          ]}
        />
      </Section>
      <div className="grid">
        <Section title="Internal accounts">
          {accounts.error ? (
            <ErrorBox error={accounts.error} retry={accounts.reload} />
          ) : !accounts.data ? (
            <Loading />
          ) : !accounts.data.data.length ? (
            <Empty>No internal accounts.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Account</th>
                  <th scope="col" className="num">Available</th>
                  <th scope="col" className="num">Total</th>
                </tr>
              </thead>
              <tbody>
                {accounts.data.data.map((a) => (
                  <tr key={a.id}>
                    <td className="mono">{a.type === 'EMBEDDED_WALLET' ? <><a href={href(`/accounts/${a.id}`)}>{a.id}</a> (<a href={href(`/wallets/${a.id}`)}>embedded wallet</a>)</> : <a href={href(`/accounts/${a.id}`)}>{a.id}</a>}</td>
                    <td className="num">
                      <Money amount={a.balance.amount} currency={a.balance.currency} />
                    </td>
                    <td className="num">
                      <Money amount={a.totalBalance.amount} currency={a.totalBalance.currency} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Section>
        <Section title="External accounts">
          {external.error ? (
            <ErrorBox error={external.error} retry={external.reload} />
          ) : !external.data ? (
            <Loading />
          ) : !external.data.data.length ? (
            <Empty>No external accounts.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Identifier</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {external.data.data.map((a) => (
                  <tr key={a.id}>
                    <td>{a.accountInfo?.accountType}</td>
                    <td className="mono">{accountIdentifier(a.accountInfo)}</td>
                    <td>
                      <Status value={a.status} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Section>
        <Section title="Documents">
          {documents.error ? (
            <ErrorBox error={documents.error} retry={documents.reload} />
          ) : !documents.data ? (
            <Loading />
          ) : !documents.data.data.length ? (
            <Empty>No documents.</Empty>
          ) : (
            <ul className="plain">
              {documents.data.data.map((d) => (
                <li key={d.id}>
                  {d.documentType} {d.status && <Status value={d.status} />} <Time iso={d.createdAt} />
                </li>
              ))}
            </ul>
          )}
        </Section>
        <Section title="Verifications">
          {verifications.error ? (
            <ErrorBox error={verifications.error} retry={verifications.reload} />
          ) : !verifications.data ? (
            <Loading />
          ) : !verifications.data.data.length ? (
            <Empty>No verifications.</Empty>
          ) : (
            <ul className="plain">
              {verifications.data.data.map((v) => (
                <li key={v.id}>
                  <Status value={v.verificationStatus ?? v.status} /> <Time iso={v.updatedAt ?? v.createdAt} />
                </li>
              ))}
            </ul>
          )}
        </Section>
      </div>
      <Section title="Payments">
        {payments.error ? (
          <ErrorBox error={payments.error} retry={payments.reload} />
        ) : !payments.data ? (
          <Loading />
        ) : !payments.data.data.length ? (
          <Empty>No payments.</Empty>
        ) : (
          <>
            <PaymentsTable rows={payments.data.data} />
            <Pager page={payments.page} hasMore={payments.data.hasMore} next={payments.next} prev={payments.prev} />
          </>
        )}
      </Section>
    </>
  );
}

export function accountIdentifier(info: Record<string, any> | undefined): string {
  if (!info) return '—';
  const v = info.accountNumber ?? info.iban ?? info.clabe ?? info.phoneNumber ?? info.address ?? info.invoice ?? info.umaAddress ?? '';
  const s = String(v);
  return s.length > 8 ? `•••${s.slice(-4)}` : s || '—';
}

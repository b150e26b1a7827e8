import { useState } from 'react';
import { Dl, Empty, ErrorBox, Loading, Money, Section, Status, Time, useLoad } from '../components';
import { useApp } from '../context';
import { href } from '../router';
import type { InternalAccount } from '../types';

/**
 * A customer's embedded wallet (issue 28, REF "Global Accounts"): the account, its credentials, its live
 * sessions (each can be revoked by the platform: POST /auth/sessions/{id}/revoke) and its delegated card keys.
 * Reached from the customer page's EMBEDDED_WALLET account (`#/wallets/<InternalAccount id>`).
 */
export interface WalletCredential {
  id: string;
  type: string;
  nickname: string;
  createdAt: string;
  updatedAt: string;
}
export interface WalletSession {
  id: string;
  type: string;
  credentialId: string;
  expiresAt: string;
  createdAt: string;
  revokedAt?: string;
}
export interface WalletDelegatedKey {
  id: string;
  cardId: string;
  nickname: string;
  status: string;
  publicKey: string;
  createdAt: string;
}

/** How a session stands at `now`: REVOKED, EXPIRED, else ACTIVE. */
export function sessionState(s: WalletSession, now: Date): 'ACTIVE' | 'EXPIRED' | 'REVOKED' {
  if (s.revokedAt) return 'REVOKED';
  return new Date(s.expiresAt).getTime() <= now.getTime() ? 'EXPIRED' : 'ACTIVE';
}

/** The three tables, without data loading: `onRevoke` absent hides the revoke buttons (no MANAGE permission). */
export function WalletTables({ credentials, sessions, keys, now, onRevoke, busy }: { credentials: WalletCredential[]; sessions: WalletSession[]; keys: WalletDelegatedKey[]; now: Date; onRevoke?: (id: string) => void; busy?: string }) {
  return (
    <>
      <Section title="Credentials">
        {!credentials.length ? (
          <Empty>No credentials.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Name</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {credentials.map((c) => (
                <tr key={c.id}>
                  <td>{c.type}</td>
                  <td>{c.nickname}</td>
                  <td>
                    <Time iso={c.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      <Section title="Sessions">
        {!sessions.length ? (
          <Empty>No live sessions.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Credential</th>
                <th scope="col">Status</th>
                <th scope="col">Expires</th>
                {onRevoke && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => {
                const state = sessionState(s, now);
                return (
                  <tr key={s.id}>
                    <td className="mono">{s.id}</td>
                    <td>{s.type}</td>
                    <td>
                      <Status value={state} />
                    </td>
                    <td>
                      <Time iso={s.expiresAt} />
                    </td>
                    {onRevoke && (
                      <td>
                        {state === 'ACTIVE' && (
                          <button type="button" disabled={busy === s.id} onClick={() => onRevoke(s.id)} aria-label={`Revoke session ${s.id}`}>
                            Revoke
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </Section>
      <Section title="Delegated keys">
        {!keys.length ? (
          <Empty>No delegated keys.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Card</th>
                <th scope="col">Status</th>
                <th scope="col">Public key</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td>{k.nickname}</td>
                  <td className="mono">{k.cardId}</td>
                  <td>
                    <Status value={k.status} />
                  </td>
                  <td className="mono">{`${k.publicKey.slice(0, 10)}…`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}

export function WalletPage({ id }: { id: string }) {
  const { api, can } = useApp();
  const [busy, setBusy] = useState<string>();
  const [actionError, setActionError] = useState<unknown>();
  const q = { accountId: id };
  const account = useLoad(() => api.get<InternalAccount & { privateEnabled?: boolean }>(`/internal-accounts/${encodeURIComponent(id)}`), [api, id]);
  const credentials = useLoad(() => api.get<{ data: WalletCredential[] }>('/auth/credentials', q), [api, id]);
  const sessions = useLoad(() => api.get<{ data: WalletSession[] }>('/auth/sessions', q), [api, id]);
  const keys = useLoad(() => api.get<{ data: WalletDelegatedKey[] }>('/auth/delegated-keys', q), [api, id]);

  const revoke = async (sessionId: string) => {
    if (!window.confirm('Revoke this session? The customer signs in again to sign anything.')) return;
    setBusy(sessionId);
    setActionError(undefined);
    try {
      await api.post(`/auth/sessions/${encodeURIComponent(sessionId)}/revoke`);
      sessions.reload();
    } catch (error) {
      setActionError(error);
    } finally {
      setBusy(undefined);
    }
  };

  const failed = account.error ?? credentials.error ?? sessions.error ?? keys.error;
  if (failed) return <ErrorBox error={failed} retry={() => [account, credentials, sessions, keys].forEach((x) => x.reload())} />;
  if (!account.data || !credentials.data || !sessions.data || !keys.data) return <Loading />;
  const a = account.data;
  return (
    <>
      <p className="crumbs">
        <a href={href('/customers')}>Customers</a> / {a.customerId && <a href={href(`/customers/${a.customerId}`)}>Customer</a>} /
      </p>
      <h1>
        Embedded wallet <span className="mono small">{a.id}</span>
      </h1>
      <Section title="Wallet">
        <Dl
          rows={[
            ['Type', a.type],
            ['Status', <Status value={a.status} />],
            ['Balance', <Money amount={a.balance.amount} currency={a.balance.currency} />],
            ['Private', a.privateEnabled ? 'yes' : 'no'],
          ]}
        />
      </Section>
      {actionError !== undefined && <ErrorBox error={actionError} />}
      <WalletTables credentials={credentials.data.data} sessions={sessions.data.data} keys={keys.data.data} now={new Date()} onRevoke={can('MANAGE') ? revoke : undefined} busy={busy} />
    </>
  );
}

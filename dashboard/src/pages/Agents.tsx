import { useState } from 'react';
import { Dl, Empty, ErrorBox, Loading, Money, Pager, Section, Status, Time, useLoad, usePaged } from '../components';
import { useApp } from '../context';
import { href } from '../router';
import type { Currency } from '../format';

/** REF's Agent (issue 26), as GET /agents answers it. */
export interface Agent {
  id: string;
  name: string;
  customerId: string;
  isPaused: boolean;
  isConnected: boolean;
  policy: {
    permissions: string[];
    defaultExecutionMode: 'AUTO' | 'APPROVAL_REQUIRED';
    spendingLimits: { currency: string; perTransactionLimit: number; dailyLimit: number | null; dailyTransactionLimit?: number; monthlyLimit: number | null };
    accountRestrictions: { allowedAccountIds: string[] | null; accountRules: Array<{ accountId: string; executionMode?: string; perTransactionLimit?: number | null }> };
    approvalThresholds?: { currency: string; amount: number | null };
  };
  usage: { dailyTransactionCount: number; dailySpend: number; monthlySpend: number; dailyResetDate?: string; monthlyResetMonth?: string };
  createdAt: string;
  updatedAt: string;
}

/** REF's AgentAction. */
export interface AgentAction {
  id: string;
  agentId: string;
  customerId: string;
  status: string;
  type: string;
  quote?: { id: string; totalSendingAmount: number; sendingCurrency?: Currency | string };
  transferDetails?: { amount: number; currency: string; sourceAccountId: string; destinationAccountId: string };
  transaction?: { id: string };
  rejectionReason?: string;
  failureReason?: string;
  createdAt: string;
}

/** What an action would move: its quote's sending amount, else its transfer's. */
export function actionAmount(a: AgentAction): { amount: number; currency: Currency | string } | undefined {
  if (a.quote) return { amount: a.quote.totalSendingAmount, currency: a.quote.sendingCurrency ?? '' };
  if (a.transferDetails) return { amount: a.transferDetails.amount, currency: a.transferDetails.currency };
  return undefined;
}

/** One line for a spending limit: "USD 500.00", or "none". */
function Limit({ amount, currency }: { amount: number | null | undefined; currency: string }) {
  return amount === null || amount === undefined ? <span className="muted">none</span> : <Money amount={amount} currency={currency} />;
}

/** Agents of the platform, and the actions waiting for its approval (approve / reject). */
export function Agents() {
  const list = usePaged<Agent>('/agents', {});
  return (
    <>
      <h1>Agents</h1>
      <PendingActions />
      <Section title="Agents">
        {list.error ? (
          <ErrorBox error={list.error} retry={list.reload} />
        ) : list.loading && !list.data ? (
          <Loading />
        ) : !list.data?.data.length ? (
          <Empty>No agents yet. Create one with POST /agents.</Empty>
        ) : (
          <>
            <div className="table-wrap">
              <table data-testid="agents">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Customer</th>
                    <th scope="col">State</th>
                    <th scope="col">Mode</th>
                    <th scope="col">Spent today</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.data.map((a) => (
                    <tr key={a.id} data-id={a.id}>
                      <td>
                        <a href={href(`/agents/${a.id}`)}>{a.name}</a>
                      </td>
                      <td className="mono">
                        <a href={href(`/customers/${a.customerId}`)}>{a.customerId}</a>
                      </td>
                      <td>
                        <Status value={a.isPaused ? 'PAUSED' : a.isConnected ? 'CONNECTED' : 'NOT_CONNECTED'} />
                      </td>
                      <td>{a.policy.defaultExecutionMode}</td>
                      <td>
                        <Money amount={a.usage.dailySpend} currency={a.policy.spendingLimits.currency} />
                      </td>
                      <td>
                        <Time iso={a.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={list.page} hasMore={list.data.hasMore} next={list.next} prev={list.prev} />
          </>
        )}
      </Section>
    </>
  );
}

/** GET /agents/approvals with Approve / Reject per row (TRANSACT); `agentId` narrows it to one agent. */
export function PendingActions({ agentId }: { agentId?: string }) {
  const { api, can } = useApp();
  const list = usePaged<AgentAction>('/agents/approvals', { agentId });
  const [state, setState] = useState<{ busy?: string; error?: unknown; done?: string }>({});
  const decide = async (a: AgentAction, decision: 'approve' | 'reject') => {
    let body: { reason?: string } | undefined;
    if (decision === 'reject') {
      const reason = window.prompt('Why is this action rejected? (shown to the platform and kept on the action)')?.trim();
      if (reason === undefined) return;
      body = reason ? { reason } : {};
    }
    setState({ busy: a.id });
    try {
      const after = await api.post<AgentAction>(`/agents/${encodeURIComponent(a.agentId)}/actions/${encodeURIComponent(a.id)}/${decision}`, body);
      setState({ done: `${a.id} is ${after.status}${after.failureReason ? ` (${after.failureReason})` : ''}.` });
      list.reload();
    } catch (error) {
      setState({ error });
    }
  };
  return (
    <Section title="Pending actions">
      {state.done && (
        <p className="notice" role="status" data-testid="action-result">
          {state.done}
        </p>
      )}
      {state.error !== undefined && <ErrorBox error={state.error} />}
      {list.error ? (
        <ErrorBox error={list.error} retry={list.reload} />
      ) : list.loading && !list.data ? (
        <Loading />
      ) : !list.data?.data.length ? (
        <Empty>No action waits for approval.</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table data-testid="pending-actions">
              <thead>
                <tr>
                  <th scope="col">Action</th>
                  <th scope="col">Type</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Submitted</th>
                  <th scope="col">
                    <span className="visually-hidden">Decision</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((a) => {
                  const m = actionAmount(a);
                  return (
                    <tr key={a.id} data-id={a.id}>
                      <td className="mono">{a.id}</td>
                      <td>{a.type}</td>
                      <td className="mono">
                        <a href={href(`/agents/${a.agentId}`)}>{a.agentId}</a>
                      </td>
                      <td>{m ? <Money amount={m.amount} currency={m.currency} /> : <span className="muted">—</span>}</td>
                      <td>
                        <Time iso={a.createdAt} />
                      </td>
                      <td>
                        {can('TRANSACT') && (
                          <>
                            <button type="button" className="primary" disabled={state.busy === a.id} onClick={() => decide(a, 'approve')} aria-label={`Approve ${a.id}`}>
                              Approve
                            </button>{' '}
                            <button type="button" disabled={state.busy === a.id} onClick={() => decide(a, 'reject')} aria-label={`Reject ${a.id}`}>
                              Reject
                            </button>
                          </>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager page={list.page} hasMore={list.data.hasMore} next={list.next} prev={list.prev} />
        </>
      )}
    </Section>
  );
}

/** One agent: its policy, today's usage against its limits, and its actions waiting for approval. */
export function AgentPage({ id }: { id: string }) {
  const { api, can } = useApp();
  const agent = useLoad(() => api.get<Agent>(`/agents/${encodeURIComponent(id)}`), [api, id]);
  const [state, setState] = useState<{ busy?: boolean; error?: unknown }>({});
  if (agent.error) return <ErrorBox error={agent.error} retry={agent.reload} />;
  if (!agent.data) return <Loading />;
  const a = agent.data;
  const l = a.policy.spendingLimits;
  const togglePause = async () => {
    setState({ busy: true });
    try {
      await api.patch(`/agents/${encodeURIComponent(a.id)}`, { isPaused: !a.isPaused });
      setState({});
      agent.reload();
    } catch (error) {
      setState({ error });
    }
  };
  return (
    <>
      <p className="crumbs">
        <a href={href('/agents')}>Agents</a> /
      </p>
      <h1>{a.name}</h1>
      <Section
        title="Agent"
        actions={
          can('TRANSACT') && (
            <button type="button" onClick={togglePause} disabled={state.busy}>
              {a.isPaused ? 'Resume' : 'Pause'}
            </button>
          )
        }
      >
        {state.error !== undefined && <ErrorBox error={state.error} />}
        <Dl
          rows={[
            ['Id', <code className="mono">{a.id}</code>],
            ['Customer', <a href={href(`/customers/${a.customerId}`)}>{a.customerId}</a>],
            ['State', <Status value={a.isPaused ? 'PAUSED' : 'ACTIVE'} />],
            ['Connected', a.isConnected ? 'Yes (device code redeemed)' : 'No'],
            ['Created', <Time iso={a.createdAt} />],
            ['Updated', <Time iso={a.updatedAt} />],
          ]}
        />
      </Section>
      <Section title="Policy">
        <Dl
          rows={[
            ['Permissions', a.policy.permissions.length ? a.policy.permissions.join(', ') : <span className="muted">none</span>],
            ['Execution mode', a.policy.defaultExecutionMode],
            ['Per transaction', <Limit amount={l.perTransactionLimit} currency={l.currency} />],
            ['Per day', <Limit amount={l.dailyLimit} currency={l.currency} />],
            ['Transactions per day', l.dailyTransactionLimit ?? <span className="muted">none</span>],
            ['Per month', <Limit amount={l.monthlyLimit} currency={l.currency} />],
            ['Approval above', a.policy.approvalThresholds?.amount != null ? <Money amount={a.policy.approvalThresholds.amount} currency={a.policy.approvalThresholds.currency} /> : <span className="muted">no threshold</span>],
            ['Accounts', a.policy.accountRestrictions.allowedAccountIds === null ? 'All of the customer' : a.policy.accountRestrictions.allowedAccountIds.join(', ') || <span className="muted">none</span>],
          ]}
        />
      </Section>
      <Section title="Usage">
        <Dl
          rows={[
            ['Spent today', <Money amount={a.usage.dailySpend} currency={l.currency} />],
            ['Transactions today', String(a.usage.dailyTransactionCount)],
            ['Spent this month', <Money amount={a.usage.monthlySpend} currency={l.currency} />],
            ['Daily counters reset', a.usage.dailyResetDate],
          ]}
        />
      </Section>
      <PendingActions agentId={a.id} />
    </>
  );
}

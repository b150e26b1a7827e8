import { useState, type FormEvent } from 'react';
import { Empty, ErrorBox, Loading, Section, useLoad } from '../components';
import { useApp } from '../context';
import { formatMoney, parseMajor } from '../format';
import { navigate } from '../router';
import type { InternalAccount, Quote } from '../types';

/** Sandbox outcomes by the destination identifier's last three digits (README "Sandbox"). */
export const MAGIC_OUTCOMES: Array<{ suffix: string; label: string }> = [
  { suffix: '000', label: 'Completes normally' },
  { suffix: '002', label: 'Execution fails (refunded)' },
  { suffix: '003', label: 'Completes slowly' },
  { suffix: '004', label: 'Delivery to the counterparty fails (refunded)' },
  { suffix: '005', label: 'Completes, then the bank returns it → FAILED' },
  { suffix: '006', label: 'Cancelled by the user' },
  { suffix: '007', label: 'Payout and refund both fail' },
  { suffix: '008', label: 'Account goes UNDER_REVIEW (no payment possible)' },
];

function useAccounts() {
  const { api } = useApp();
  return useLoad(async () => {
    const [platform, customers] = await Promise.all([
      api.get<{ data: InternalAccount[] }>('/platform/internal-accounts'),
      api.all<InternalAccount>('/customers/internal-accounts', {}, 5),
    ]);
    return [...platform.data, ...customers.items];
  }, [api]);
}

const label = (a: InternalAccount) => `${a.customerId ? `Customer …${a.customerId.slice(-6)}` : 'Platform'} · ${a.balance.currency.code} · ${formatMoney(a.balance.amount, a.balance.currency)} (${a.id.slice(-8)})`;

export function Sandbox() {
  const { can } = useApp();
  const accounts = useAccounts();
  if (!can('TRANSACT')) {
    return (
      <>
        <h1>Sandbox tools</h1>
        <p className="muted">Sandbox tools move (test) money and need the TRANSACT permission.</p>
      </>
    );
  }
  return (
    <>
      <h1>Sandbox tools</h1>
      {accounts.error ? (
        <ErrorBox error={accounts.error} retry={accounts.reload} />
      ) : !accounts.data ? (
        <Loading />
      ) : accounts.data.length === 0 ? (
        <Empty>No internal accounts.</Empty>
      ) : (
        <>
          <Fund accounts={accounts.data} onFunded={accounts.reload} />
          <MagicPayment accounts={accounts.data.filter((a) => a.balance.currency.code === 'USD')} />
        </>
      )}
    </>
  );
}

function Fund({ accounts, onFunded }: { accounts: InternalAccount[]; onFunded: () => void }) {
  const { api } = useApp();
  const [accountId, setAccountId] = useState(accounts[0]!.id);
  const [amount, setAmount] = useState('100.00');
  const [state, setState] = useState<{ busy?: boolean; error?: unknown; result?: InternalAccount }>({});
  const account = accounts.find((a) => a.id === accountId) ?? accounts[0]!;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseMajor(amount, account.balance.currency.decimals);
    if (!parsed.ok) return setState({ error: new Error(parsed.error) });
    if (parsed.minor <= 0n) return setState({ error: new Error('Enter an amount above zero.') });
    if (parsed.minor > BigInt(Number.MAX_SAFE_INTEGER)) return setState({ error: new Error('Amount too large.') });
    setState({ busy: true });
    try {
      const result = await api.post<InternalAccount>(`/sandbox/internal-accounts/${encodeURIComponent(account.id)}/fund`, { amount: Number(parsed.minor) }, true);
      setState({ result });
      onFunded();
    } catch (error) {
      setState({ error });
    }
  };
  return (
    <Section title="Fund an internal account">
      <form className="filters" onSubmit={submit} aria-label="Fund an internal account">
        <label className="field grow">
          <span>Account</span>
          <select name="fundAccount" value={account.id} onChange={(e) => setAccountId(e.target.value)}>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {label(a)}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Amount ({account.balance.currency.code})</span>
          <input name="fundAmount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} size={12} />
        </label>
        <button type="submit" className="primary" disabled={state.busy}>
          Fund
        </button>
      </form>
      {state.result && (
        <p className="ok-text" role="status" data-testid="fund-result">
          Funded. New balance: {formatMoney(state.result.balance.amount, state.result.balance.currency)}
        </p>
      )}
      {state.error !== undefined && <ErrorBox error={state.error} />}
    </Section>
  );
}

function MagicPayment({ accounts }: { accounts: InternalAccount[] }) {
  const { api } = useApp();
  const [sourceId, setSourceId] = useState(accounts[0]?.id ?? '');
  const [suffix, setSuffix] = useState('002');
  const [amount, setAmount] = useState('10.00');
  const [state, setState] = useState<{ busy?: boolean; step?: string; error?: unknown }>({});
  if (!accounts.length) {
    return (
      <Section title="Pay a magic destination">
        <Empty>No USD internal account to pay from.</Empty>
      </Section>
    );
  }
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseMajor(amount, 2);
    if (!parsed.ok || parsed.minor <= 0n) return setState({ error: new Error(parsed.ok ? 'Enter an amount above zero.' : parsed.error) });
    try {
      setState({ busy: true, step: 'Creating the destination account…' });
      const digits = String(Math.floor(Math.random() * 1_000_000)).padStart(6, '0');
      const ext = await api.post<{ id: string; status: string }>(
        '/platform/external-accounts',
        {
          currency: 'USD',
          accountInfo: {
            accountType: 'USD_ACCOUNT',
            accountNumber: `${digits}${suffix}`,
            routingNumber: '021000021',
            bankAccountType: 'CHECKING',
            bankName: 'Sandbox Bank',
            beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Sandbox Receiver', address: { line1: '1 Main St', city: 'New York', postalCode: '10001', country: 'US' } },
          },
        },
        true,
      );
      setState({ busy: true, step: 'Waiting for the account check…' });
      let status = ext.status;
      for (let i = 0; i < 120 && status === 'PENDING'; i++) {
        await new Promise((r) => setTimeout(r, 500));
        status = (await api.get<{ status: string }>(`/platform/external-accounts/${encodeURIComponent(ext.id)}`)).status;
      }
      if (status !== 'ACTIVE') {
        setState({ step: `The destination account is ${status}; no payment can be made to it.` });
        return;
      }
      setState({ busy: true, step: 'Creating the quote…' });
      const quote = await api.post<Quote>(
        '/quotes',
        { source: { sourceType: 'ACCOUNT', accountId: sourceId }, destination: { destinationType: 'ACCOUNT', accountId: ext.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: Number(parsed.minor), description: `Sandbox ${suffix}` },
        true,
      );
      setState({});
      navigate(`/payments/${quote.transactionId}`);
    } catch (error) {
      setState({ error });
    }
  };
  return (
    <Section title="Pay a magic destination">
      <p className="muted">Creates a USD bank account whose number ends in the chosen digits, quotes a payment to it and opens the payment, where you execute it and watch it move.</p>
      <form className="filters" onSubmit={submit} aria-label="Pay a magic destination">
        <label className="field grow">
          <span>From</span>
          <select name="source" value={sourceId} onChange={(e) => setSourceId(e.target.value)}>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {label(a)}
              </option>
            ))}
          </select>
        </label>
        <label className="field grow">
          <span>Outcome</span>
          <select name="outcome" value={suffix} onChange={(e) => setSuffix(e.target.value)}>
            {MAGIC_OUTCOMES.map((o) => (
              <option key={o.suffix} value={o.suffix}>
                …{o.suffix}: {o.label}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Amount (USD)</span>
          <input name="magicAmount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} size={10} />
        </label>
        <button type="submit" className="primary" disabled={state.busy}>
          Create payment
        </button>
      </form>
      {state.step && (
        <p role="status" className="muted">
          {state.step}
        </p>
      )}
      {state.error !== undefined && <ErrorBox error={state.error} />}
    </Section>
  );
}

import { useState, type FormEvent } from 'react';
import { ErrorBox, Section } from '../components';
import { useApp } from '../context';
import { parseMajor } from '../format';
import type { Stablecoin, StablecoinOperation } from './Stablecoins';

/*
 * Issue 26 (26c): mint and burn forms for one token (POST /stablecoins/{id}/mints|burns, with an
 * Idempotency-Key per submission). Accounts are named by id, as the API takes them: an ExternalAccount
 * (bank, Spark wallet) or an InternalAccount for the internal-account variants.
 */

const MINT_FUNDING = ['WIRE', 'ACH_DEBIT', 'SAME_DAY_ACH_DEBIT', 'GRID_INTERNAL_ACCOUNT', 'PROVIDER_INTERNAL_BALANCE'] as const;
const BURN_SOURCES = ['EXTERNAL_ACCOUNT', 'GRID_INTERNAL_ACCOUNT', 'PROVIDER_INTERNAL_BALANCE'] as const;
const RAILS = ['WIRE', 'ACH_CREDIT', 'SAME_DAY_ACH_CREDIT', 'RTP_CREDIT'] as const;

type State = { busy?: boolean; error?: unknown; result?: StablecoinOperation };

function useSubmit(token: Stablecoin, kind: 'mints' | 'burns', onDone: () => void) {
  const { api } = useApp();
  const [state, setState] = useState<State>({});
  const submit = async (amount: string, body: (minor: string) => Record<string, unknown>) => {
    const parsed = parseMajor(amount, token.decimals);
    if (!parsed.ok) return setState({ error: new Error(parsed.error) });
    if (parsed.minor <= 0n) return setState({ error: new Error('Enter an amount above zero.') });
    setState({ busy: true });
    try {
      const result = await api.post<StablecoinOperation>(`/stablecoins/${encodeURIComponent(token.id)}/${kind}`, body(parsed.minor.toString()), true);
      setState({ result });
      onDone();
    } catch (error) {
      setState({ error });
    }
  };
  return { state, submit };
}

function Outcome({ state, testId }: { state: State; testId: string }) {
  return (
    <>
      {state.result && (
        <p className="ok-text" role="status" data-testid={testId}>
          {state.result.operationType} {state.result.id.slice(-8)}: {state.result.status}
          {state.result.failureReason ? ` (${state.result.failureReason})` : ''}
        </p>
      )}
      {state.error !== undefined && <ErrorBox error={state.error} />}
    </>
  );
}

export function MintForm({ token, onDone }: { token: Stablecoin; onDone: () => void }) {
  const [amount, setAmount] = useState('1.00');
  const [funding, setFunding] = useState<(typeof MINT_FUNDING)[number]>('WIRE');
  const [fundingAccount, setFundingAccount] = useState('');
  const [destination, setDestination] = useState('');
  const { state, submit } = useSubmit(token, 'mints', onDone);
  const needsAccount = funding !== 'WIRE' && funding !== 'PROVIDER_INTERNAL_BALANCE';
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void submit(amount, (minor) => ({
      amount: minor,
      fundingSource:
        funding === 'WIRE'
          ? { type: funding }
          : funding === 'GRID_INTERNAL_ACCOUNT'
            ? { type: funding, accountId: fundingAccount.trim() }
            : funding === 'PROVIDER_INTERNAL_BALANCE'
              ? { type: funding, sourceTokenIdentifier: 'USDC', cryptoNetwork: 'SOLANA' }
              : { type: funding, externalAccountId: fundingAccount.trim() },
      destination: { accountId: destination.trim() },
    }));
  };
  return (
    <Section title={`Mint ${token.symbol}`}>
      <form className="filters" onSubmit={onSubmit} aria-label="Mint">
        <label className="field">
          <span>Amount ({token.symbol})</span>
          <input name="mintAmount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} size={12} />
        </label>
        <label className="field">
          <span>Funding</span>
          <select name="mintFunding" value={funding} onChange={(e) => setFunding(e.target.value as (typeof MINT_FUNDING)[number])}>
            {MINT_FUNDING.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
        {needsAccount && (
          <label className="field grow">
            <span>{funding === 'GRID_INTERNAL_ACCOUNT' ? `Internal account (${token.baseCurrency})` : `Bank account (${token.baseCurrency})`}</span>
            <input name="mintFundingAccount" value={fundingAccount} onChange={(e) => setFundingAccount(e.target.value)} placeholder={funding === 'GRID_INTERNAL_ACCOUNT' ? 'InternalAccount:…' : 'ExternalAccount:…'} />
          </label>
        )}
        <label className="field grow">
          <span>Destination (Spark wallet or {token.symbol} internal account)</span>
          <input name="mintDestination" value={destination} onChange={(e) => setDestination(e.target.value)} placeholder="ExternalAccount:… or InternalAccount:…" />
        </label>
        <button type="submit" className="primary" disabled={state.busy}>
          Mint
        </button>
      </form>
      <Outcome state={state} testId="mint-result" />
    </Section>
  );
}

export function BurnForm({ token, onDone }: { token: Stablecoin; onDone: () => void }) {
  const [amount, setAmount] = useState('1.00');
  const [source, setSource] = useState<(typeof BURN_SOURCES)[number]>('EXTERNAL_ACCOUNT');
  const [sourceAccount, setSourceAccount] = useState('');
  const [bank, setBank] = useState('');
  const [rail, setRail] = useState<(typeof RAILS)[number]>('ACH_CREDIT');
  const { state, submit } = useSubmit(token, 'burns', onDone);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void submit(amount, (minor) => ({
      amount: minor,
      source: source === 'GRID_INTERNAL_ACCOUNT' ? { type: source, accountId: sourceAccount.trim() } : { type: source },
      destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bank.trim(), rail },
    }));
  };
  return (
    <Section title={`Burn ${token.symbol}`}>
      <form className="filters" onSubmit={onSubmit} aria-label="Burn">
        <label className="field">
          <span>Amount ({token.symbol})</span>
          <input name="burnAmount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} size={12} />
        </label>
        <label className="field">
          <span>Source</span>
          <select name="burnSource" value={source} onChange={(e) => setSource(e.target.value as (typeof BURN_SOURCES)[number])}>
            {BURN_SOURCES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        {source === 'GRID_INTERNAL_ACCOUNT' && (
          <label className="field grow">
            <span>Internal account ({token.symbol})</span>
            <input name="burnSourceAccount" value={sourceAccount} onChange={(e) => setSourceAccount(e.target.value)} placeholder="InternalAccount:…" />
          </label>
        )}
        <label className="field grow">
          <span>Bank account paid ({token.baseCurrency})</span>
          <input name="burnBank" value={bank} onChange={(e) => setBank(e.target.value)} placeholder="ExternalAccount:…" />
        </label>
        <label className="field">
          <span>Rail</span>
          <select name="burnRail" value={rail} onChange={(e) => setRail(e.target.value as (typeof RAILS)[number])}>
            {RAILS.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" disabled={state.busy}>
          Burn
        </button>
      </form>
      <Outcome state={state} testId="burn-result" />
    </Section>
  );
}

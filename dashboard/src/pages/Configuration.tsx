import { useState, type FormEvent } from 'react';
import { Dl, Empty, ErrorBox, Section, Time } from '../components';
import { useApp } from '../context';
import { formatBps, formatMoney, parseMajor, decimalsOf } from '../format';
import { Tokens } from './Tokens';

const RAILS = ['ACH', 'RTP', 'FEDNOW', 'WIRE'];

export function Configuration() {
  const { config, can } = useApp();
  return (
    <>
      <h1>Configuration</h1>
      <Section title="Platform">
        <Dl
          rows={[
            ['Name', config.name],
            ['Environment', config.environment],
            ['Supported currencies', config.supportedCurrencies.map((c) => c.currencyCode).join(', ')],
          ]}
        />
      </Section>
      <Section title="Platform fees">
        <p className="muted">
          Fee configs are merged by key: a change sends only the entries it sets and leaves every other one as it is. The key of a rail fee is
          (rail, direction, originator); the key of a cross-currency fee is its source currency. Setting both the variable fee and the fixed fee to 0
          switches an entry off for new payments. The fee is <em>fixed + variable × (amount − fixed fees)</em>, each part rounded half up.
        </p>
        {config.feeConfigs.length === 0 ? (
          <Empty>No platform fees: payments carry only the service's own fees.</Empty>
        ) : (
          <div className="table-wrap">
            <table data-testid="fee-configs">
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Key</th>
                  <th scope="col" className="num">Variable</th>
                  <th scope="col" className="num">Fixed</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {config.feeConfigs.map((f) => (
                  <tr key={f.id}>
                    <td>{f.feeType}</td>
                    <td className="mono">{f.feeType === 'RAIL' ? `${f.rail} · ${f.direction} · ${f.originator}` : f.sourceCurrency}</td>
                    <td className="num">{formatBps(f.variableFeeBps)}</td>
                    <td className="num">{formatMoney(f.fixedFee.amount, f.fixedFee.currency)}</td>
                    <td>
                      <Time iso={f.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {can('MANAGE') ? <FeeForm /> : <p className="muted">Changing fees needs the MANAGE permission.</p>}
      </Section>
      <WebhookSettings />
      {can('MANAGE') && <Tokens />}
    </>
  );
}

function FeeForm() {
  const { api, reloadConfig } = useApp();
  const [f, setF] = useState({ feeType: 'RAIL', rail: 'ACH', sourceCurrency: 'USD', bps: '0', fixed: '0.00' });
  const [state, setState] = useState<{ busy?: boolean; error?: unknown; saved?: boolean }>({});
  const currency = 'USD';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const fixed = parseMajor(f.fixed, decimalsOf(currency));
    const bps = /^\d{1,5}$/.test(f.bps.trim()) ? Number(f.bps.trim()) : NaN;
    if (!fixed.ok) return setState({ error: new Error(`Fixed fee: ${fixed.error}`) });
    if (!(bps >= 0 && bps <= 10_000)) return setState({ error: new Error('Variable fee: whole basis points from 0 to 10000.') });
    const entry =
      f.feeType === 'RAIL'
        ? { feeType: 'RAIL', rail: f.rail, direction: 'OUT', originator: 'SVC', variableFeeBps: bps, fixedFee: { amount: Number(fixed.minor), currency } }
        : { feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: f.sourceCurrency, variableFeeBps: bps, fixedFee: { amount: Number(fixed.minor), currency } };
    setState({ busy: true });
    try {
      await api.patch('/config', { feeConfigs: [entry] });
      await reloadConfig();
      setState({ saved: true });
    } catch (error) {
      setState({ error });
    }
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Set a platform fee">
      <label className="field">
        <span>Fee type</span>
        <select value={f.feeType} onChange={(e) => setF({ ...f, feeType: e.target.value })}>
          <option value="RAIL">RAIL</option>
          <option value="CROSS_CURRENCY_TRANSACTION">CROSS_CURRENCY_TRANSACTION</option>
        </select>
      </label>
      {f.feeType === 'RAIL' ? (
        <label className="field">
          <span>Rail (outgoing, SVC)</span>
          <select value={f.rail} onChange={(e) => setF({ ...f, rail: e.target.value })}>
            {RAILS.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
      ) : (
        <label className="field">
          <span>Source currency</span>
          <input value={f.sourceCurrency} onChange={(e) => setF({ ...f, sourceCurrency: e.target.value.toUpperCase() })} maxLength={4} size={5} />
        </label>
      )}
      <label className="field">
        <span>Variable (bps)</span>
        <input inputMode="numeric" value={f.bps} onChange={(e) => setF({ ...f, bps: e.target.value })} size={6} />
      </label>
      <label className="field">
        <span>Fixed ({currency})</span>
        <input inputMode="decimal" value={f.fixed} onChange={(e) => setF({ ...f, fixed: e.target.value })} size={10} />
      </label>
      <button type="submit" disabled={state.busy}>
        Save fee
      </button>
      {state.saved && (
        <span className="ok-text" role="status">
          Saved.
        </span>
      )}
      {state.error !== undefined && <ErrorBox error={state.error} />}
    </form>
  );
}

function WebhookSettings() {
  const { api, config, can, reloadConfig } = useApp();
  const [url, setUrl] = useState(config.webhookEndpoint ?? '');
  const [state, setState] = useState<{ busy?: boolean; error?: unknown; message?: string }>({});
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setState({ busy: true });
    try {
      await api.patch('/config', { webhookEndpoint: url.trim() });
      await reloadConfig();
      setState({ message: 'Endpoint saved; a TEST event was queued to it.' });
    } catch (error) {
      setState({ error });
    }
  };
  const test = async () => {
    setState({ busy: true });
    try {
      await api.post('/sandbox/webhooks/test');
      setState({ message: 'Test event sent. See it under Webhooks.' });
    } catch (error) {
      setState({ error });
    }
  };
  return (
    <Section title="Webhook endpoint">
      {can('MANAGE') ? (
        <form className="filters" onSubmit={save} aria-label="Webhook endpoint">
          <label className="field grow">
            <span>Endpoint URL</span>
            <input type="url" name="webhookEndpoint" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/webhooks" required />
          </label>
          <button type="submit" disabled={state.busy}>
            Save endpoint
          </button>
        </form>
      ) : (
        <p>{config.webhookEndpoint ? <code className="mono">{config.webhookEndpoint}</code> : <span className="muted">No endpoint.</span>}</p>
      )}
      {can('TRANSACT') && config.environment === 'SANDBOX' && (
        <p>
          <button type="button" onClick={test} disabled={state.busy || !config.webhookEndpoint}>
            Send a test event
          </button>
        </p>
      )}
      {state.message && (
        <p className="ok-text" role="status">
          {state.message}
        </p>
      )}
      {state.error !== undefined && <ErrorBox error={state.error} />}
    </Section>
  );
}

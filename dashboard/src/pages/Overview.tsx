import { useState } from 'react';
import { Empty, ErrorBox, Loading, Section, Status, useLoad } from '../components';
import { useApp } from '../context';
import { decimalsOf, formatMinor, formatMoney, lastDays, startOfLocalDay, successRate } from '../format';
import { barHeights, computeOverview } from '../stats';
import type { InternalAccount, Transaction } from '../types';
import { href } from '../router';

const DAYS = 7;

export function Overview() {
  const { api } = useApp();
  const balances = useLoad(async () => {
    const [platform, customers] = await Promise.all([
      api.get<{ data: InternalAccount[] }>('/platform/internal-accounts'),
      api.all<InternalAccount>('/customers/internal-accounts', {}, 20),
    ]);
    const rows = new Map<string, { decimals: number; platform: bigint; customers: bigint; held: bigint }>();
    const add = (a: InternalAccount, who: 'platform' | 'customers') => {
      const code = a.balance.currency.code;
      const r = rows.get(code) ?? { decimals: a.balance.currency.decimals, platform: 0n, customers: 0n, held: 0n };
      r[who] += BigInt(a.balance.amount);
      r.held += BigInt(a.totalBalance.amount) - BigInt(a.balance.amount);
      rows.set(code, r);
    };
    platform.data.forEach((a) => add(a, 'platform'));
    customers.items.forEach((a) => add(a, 'customers'));
    return { rows: [...rows.entries()].sort((a, b) => a[0].localeCompare(b[0])), complete: customers.complete };
  }, [api]);

  const now = new Date();
  const days = lastDays(now, DAYS);
  const payments = useLoad(async () => {
    const res = await api.all<Transaction>('/transactions', { startDate: startOfLocalDay(now, DAYS - 1).toISOString() }, 20);
    // Payments only: the unfiltered list holds card transactions too (issue 27), which have no sent amount.
    return { ...res, stats: computeOverview(res.items.filter((t) => t.type !== 'CARD'), days, now) };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api]);
  const [chartCurrency, setChartCurrency] = useState<string>();

  return (
    <>
      <h1>Overview</h1>
      <div className="grid">
        <Section title="Payments today">
          {payments.loading && !payments.data ? (
            <Loading />
          ) : payments.error ? (
            <ErrorBox error={payments.error} retry={payments.reload} />
          ) : (
            <>
              <div className="kpis">
                <div className="kpi">
                  <span className="kpi-label">Success rate</span>
                  <span className="kpi-value" data-testid="success-rate">
                    {successRate(payments.data!.stats.completedToday, payments.data!.stats.failedToday)}
                  </span>
                  <span className="muted">completed ÷ (completed + failed)</span>
                </div>
                <div className="kpi">
                  <span className="kpi-label">Fee revenue today</span>
                  <span className="kpi-value" data-testid="fee-revenue">
                    {payments.data!.stats.feeRevenueToday.size === 0
                      ? '0'
                      : [...payments.data!.stats.feeRevenueToday].map(([c, v]) => formatMoney(v, c)).join(' · ')}
                  </span>
                  <span className="muted">
                    last {DAYS} days: {[...payments.data!.stats.feeRevenuePeriod].map(([c, v]) => formatMoney(v, c)).join(' · ') || '0'}
                  </span>
                </div>
              </div>
              {Object.keys(payments.data!.stats.todayByStatus).length === 0 ? (
                <Empty>No payments today.</Empty>
              ) : (
                <ul className="status-counts" data-testid="today-by-status">
                  {Object.entries(payments.data!.stats.todayByStatus).map(([s, n]) => (
                    <li key={s}>
                      <a href={href('/payments', { status: s, from: days[days.length - 1] })}>
                        <Status value={s} /> <strong>{n}</strong>
                      </a>
                    </li>
                  ))}
                </ul>
              )}
            </>
          )}
        </Section>
        <Section title="Balances">
          {balances.loading && !balances.data ? (
            <Loading />
          ) : balances.error ? (
            <ErrorBox error={balances.error} retry={balances.reload} />
          ) : !balances.data?.rows.length ? (
            <Empty>No internal accounts yet.</Empty>
          ) : (
            <div className="table-wrap">
              {balances.data.rows.every(([, r]) => r.platform === 0n && r.customers === 0n && r.held === 0n) ? <Empty>No money held yet.</Empty> : (
              <table data-testid="balances">
                <thead>
                  <tr>
                    <th scope="col">Currency</th>
                    <th scope="col" className="num">Platform</th>
                    <th scope="col" className="num">Customers</th>
                    <th scope="col" className="num">Held</th>
                  </tr>
                </thead>
                <tbody>
                  {balances.data.rows.filter(([, r]) => r.platform !== 0n || r.customers !== 0n || r.held !== 0n).map(([code, r]) => (
                    <tr key={code} data-currency={code}>
                      <th scope="row">{code}</th>
                      <td className="num">{formatMinor(r.platform, r.decimals)}</td>
                      <td className="num">{formatMinor(r.customers, r.decimals)}</td>
                      <td className="num">{formatMinor(r.held, r.decimals)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              )}
              {balances.data.rows.some(([, r]) => r.platform === 0n && r.customers === 0n && r.held === 0n) && (
                <p className="muted small">
                  Nothing held in {balances.data.rows.filter(([, r]) => r.platform === 0n && r.customers === 0n && r.held === 0n).map(([c]) => c).join(', ')}.
                </p>
              )}
              {!balances.data.complete && <p className="muted">Customers' totals cover the first 2,000 accounts.</p>}
            </div>
          )}
        </Section>

      </div>

      <Section
        title={`Completed volume, last ${DAYS} days`}
        actions={
          payments.data && payments.data.stats.currencies.length > 1 ? (
            <label className="inline">
              Currency{' '}
              <select value={chartCurrency ?? payments.data.stats.currencies[0]} onChange={(e) => setChartCurrency(e.target.value)}>
                {payments.data.stats.currencies.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </label>
          ) : undefined
        }
      >
        {payments.loading && !payments.data ? (
          <Loading />
        ) : payments.error ? (
          <ErrorBox error={payments.error} retry={payments.reload} />
        ) : payments.data!.stats.currencies.length === 0 ? (
          <Empty>No completed payments in the last {DAYS} days.</Empty>
        ) : (
          <VolumeChart days={days} volume={payments.data!.stats.volume} currency={chartCurrency ?? payments.data!.stats.currencies[0]!} />
        )}
        {payments.data && !payments.data.complete && <p className="muted">Figures cover the latest 2,000 payments of the period.</p>}
      </Section>
    </>
  );
}

function VolumeChart({ days, volume, currency }: { days: string[]; volume: Map<string, Map<string, bigint>>; currency: string }) {
  const values = days.map((d) => volume.get(d)?.get(currency) ?? 0n);
  const heights = barHeights(values);
  const decimals = decimalsOf(currency);
  const w = 700;
  const h = 200;
  const bw = w / days.length;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${w} ${h + 40}`} role="img" aria-label={`Completed volume in ${currency} per day`}>
        <line x1="0" y1={h} x2={w} y2={h} className="axis" />
        {days.map((d, i) => {
          const bh = (heights[i]! * (h - 20)) / 100;
          return (
            <g key={d}>
              <rect x={i * bw + bw * 0.2} y={h - bh} width={bw * 0.6} height={bh} className="bar" data-value={values[i]! > 0n ? values[i]!.toString() : undefined}>
                <title>{`${d}: ${formatMoney(values[i]!, { code: currency, decimals })}`}</title>
              </rect>
              <text x={i * bw + bw / 2} y={h + 16} textAnchor="middle" className="tick">
                {d.slice(5)}
              </text>
              {values[i]! > 0n && (
                <text x={i * bw + bw / 2} y={h - bh - 4} textAnchor="middle" className="val">
                  {formatMinor(values[i]!, decimals)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption className="muted">Sent amounts of completed payments in {currency}, by day in your time zone.</figcaption>
    </figure>
  );
}

import { Dl, Empty, ErrorBox, Loading, Pager, Section, Status, Time, usePaged } from '../components';
import { href } from '../router';
import { formatMinor } from '../format';
import { useApp } from '../context';
import { BurnForm, MintForm } from './StablecoinForms';

/** REF Stablecoin and StablecoinOperation (issue 26), as GET /stablecoins and /stablecoins/{id}/operations answer them. */
export interface Stablecoin {
  id: string;
  name: string;
  symbol: string;
  baseCurrency: string;
  network: string;
  decimals: number;
  issuanceStatus: string;
  gridOperationsStatus: string;
  provider: string;
  currency?: string;
  createdAt: string;
}

export interface StablecoinOperation {
  id: string;
  operationType: 'MINT' | 'BURN';
  status: string;
  amount: string;
  failureReason?: string;
  expiresAt?: string;
  createdAt: string;
}

/** The tokens this platform issues; one token's page lists its mints and burns. */
export function Stablecoins({ id }: { id?: string }) {
  const tokens = usePaged<Stablecoin>('/stablecoins', {});
  return (
    <>
      <h1>Stablecoins</h1>
      {tokens.error ? (
        <ErrorBox error={tokens.error} retry={tokens.reload} />
      ) : !tokens.data ? (
        <Loading />
      ) : !tokens.data.data.length ? (
        <Empty>No stablecoins registered. Link a provider account and register a token through the API (POST /stablecoins).</Empty>
      ) : (
        <>
          <table aria-label="Stablecoins">
            <thead>
              <tr>
                <th scope="col">Token</th>
                <th scope="col">Network</th>
                <th scope="col">Issuance</th>
                <th scope="col">Operations</th>
                <th scope="col">Registered</th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.data.map((t) => (
                <tr key={t.id} aria-current={t.id === id ? 'true' : undefined}>
                  <td>
                    <a href={href(`/stablecoins/${t.id}`)}>
                      {t.symbol} · {t.name}
                    </a>
                  </td>
                  <td>{t.network}</td>
                  <td>
                    <Status value={t.issuanceStatus} />
                  </td>
                  <td>
                    <Status value={t.gridOperationsStatus} />
                  </td>
                  <td>
                    <Time iso={t.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={tokens.page} hasMore={tokens.data.hasMore} next={tokens.next} prev={tokens.prev} />
        </>
      )}
      {id && <TokenOperations token={tokens.data?.data.find((t) => t.id === id)} id={id} />}
    </>
  );
}

function TokenOperations({ id, token }: { id: string; token?: Stablecoin }) {
  const ops = usePaged<StablecoinOperation>(`/stablecoins/${encodeURIComponent(id)}/operations`, {});
  const { can } = useApp();
  return (
    <>
    {token && can('MANAGE') && (
      <>
        <MintForm token={token} onDone={ops.reload} />
        <BurnForm token={token} onDone={ops.reload} />
      </>
    )}
    <Section title={`Mints and burns${token ? ` of ${token.symbol}` : ''}`}>
      {token && <Dl rows={[['Base currency', token.baseCurrency], ['Decimals', String(token.decimals)], ['Provider', token.provider], ['Currency code', token.currency ?? '— (not ENABLED)']]} />}
      {ops.error ? (
        <ErrorBox error={ops.error} retry={ops.reload} />
      ) : !ops.data ? (
        <Loading />
      ) : !ops.data.data.length ? (
        <Empty>No mints or burns yet.</Empty>
      ) : (
        <>
          <table aria-label="Operations">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Type</th>
                <th scope="col" className="num">Amount</th>
                <th scope="col">Status</th>
                <th scope="col">Expires</th>
              </tr>
            </thead>
            <tbody>
              {ops.data.data.map((o) => (
                <tr key={o.id}>
                  <td>
                    <Time iso={o.createdAt} />
                  </td>
                  <td>{o.operationType}</td>
                  <td className="num">{token ? `${formatMinor(o.amount, token.decimals)} ${token.symbol}` : o.amount}</td>
                  <td>
                    <Status value={o.status} /> {o.failureReason && <span className="muted">{o.failureReason}</span>}
                  </td>
                  <td>{o.expiresAt ? <Time iso={o.expiresAt} /> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={ops.page} hasMore={ops.data.hasMore} next={ops.next} prev={ops.prev} />
        </>
      )}
    </Section>
    </>
  );
}

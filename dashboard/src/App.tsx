import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { Api, ApiError } from './api';
import { AppContext, type Ctx, type PlatformConfig } from './context';
import { ErrorBox, Loading } from './components';
import { href, useRoute } from './router';
import type { Session, SessionState, TokenInfo } from './session';
import { Overview } from './pages/Overview';
import { Customers, CustomerPage } from './pages/Customers';
import { Payments, PaymentPage } from './pages/Payments';
import { Webhooks } from './pages/Webhooks';
import { Configuration } from './pages/Configuration';
import { Sandbox } from './pages/Sandbox';
import { WalletPage } from './pages/Wallet';
import { Agents, AgentPage } from './pages/Agents';
import { Cards, CardPage } from './pages/Cards';
import { AccountPage, HeldCredits } from './pages/Accounts';
import { Stablecoins } from './pages/Stablecoins';

export function App({ apiBase, session }: { apiBase: string; session: Session }) {
  const api = useMemo(() => new Api(apiBase, session), [apiBase, session]);
  const [state, setState] = useState<SessionState>(session.current);
  useEffect(() => session.subscribe(setState), [session]);

  // Inactivity: input restarts the clock; a periodic check signs out once it ran out.
  useEffect(() => {
    const touch = () => session.touch(Date.now());
    const events = ['keydown', 'pointerdown', 'wheel', 'touchstart'] as const;
    for (const e of events) window.addEventListener(e, touch, { passive: true });
    const timer = window.setInterval(() => session.checkIdle(Date.now()), 5_000);
    const onVisible = () => document.visibilityState === 'visible' && session.checkIdle(Date.now());
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      for (const e of events) window.removeEventListener(e, touch);
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [session]);

  if (state.status === 'signedOut') return <SignIn api={api} session={session} notice={state.notice} />;
  return <SignedIn api={api} session={session} token={state.token} />;
}

function SignIn({ api, session, notice }: { api: Api; session: Session; notice?: string }) {
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const creds = { clientId: clientId.trim(), clientSecret };
    try {
      const token = await api.request<TokenInfo>('GET', '/tokens/current', { credentials: creds });
      setClientSecret('');
      session.signIn(creds, token, Date.now());
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'Client id or secret is wrong, or the token was deleted.' : err instanceof ApiError ? err.describe() : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="signin-title" autoComplete="off">
        <h1 id="signin-title">Sign in to the dashboard</h1>
        <p className="muted">Use an API token of your platform (client id and secret). The secret stays in this tab's memory only; reloading or closing the tab signs you out.</p>
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        <label className="field">
          <span>Client id</span>
          <input name="clientId" value={clientId} onChange={(e) => setClientId(e.target.value)} required autoFocus spellCheck={false} autoCapitalize="off" />
        </label>
        <label className="field">
          <span>Client secret</span>
          <input name="clientSecret" type="password" value={clientSecret} onChange={(e) => setClientSecret(e.target.value)} required autoComplete="off" />
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

const NAV: Array<{ path: string; label: string; sandbox?: boolean }> = [
  { path: '/', label: 'Overview' },
  { path: '/customers', label: 'Customers' },
  { path: '/payments', label: 'Payments' },
  { path: '/agents', label: 'Agents' },
  { path: '/cards', label: 'Cards' },
  { path: '/webhooks', label: 'Webhooks' },
  { path: '/configuration', label: 'Configuration' },
  { path: '/pay-ins', label: 'Held pay-ins' },
  { path: '/stablecoins', label: 'Stablecoins' },
  { path: '/sandbox', label: 'Sandbox tools', sandbox: true },
];

function SignedIn({ api, session, token }: { api: Api; session: Session; token: TokenInfo }) {
  const [config, setConfig] = useState<PlatformConfig>();
  const [error, setError] = useState<unknown>();
  const [menuOpen, setMenuOpen] = useState(false);
  const route = useRoute();
  const reloadConfig = useCallback(async () => {
    try {
      setConfig(await api.get<PlatformConfig>('/config'));
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  }, [api]);
  useEffect(() => {
    if (token.permissions.includes('VIEW')) void reloadConfig();
  }, [reloadConfig, token]);
  useEffect(() => setMenuOpen(false), [route.path]);

  const signOut = () => session.signOut('You signed out.');
  const header = (
    <header className="topbar">
      <a className="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <div className="brand">
        <span className="logo" aria-hidden="true">
          ◆
        </span>
        <span>{config?.name ?? 'svc-payments'}</span>
        {config && <span className={`env ${config.environment.toLowerCase()}`}>{config.environment}</span>}
      </div>
      <button type="button" className="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen((o) => !o)}>
        Menu
      </button>
      <div className="who" aria-label="Signed-in token">
        <span className="token-name">{token.name}</span>
        <span className="perms" data-testid="permissions">
          {token.permissions.map((p) => (
            <span key={p} className="perm">
              {p}
            </span>
          ))}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </div>
    </header>
  );

  if (!token.permissions.includes('VIEW')) {
    return (
      <>
        {header}
        <main id="main" tabIndex={-1} className="content">
          <ErrorBox error={new Error('This token lacks the VIEW permission, so the dashboard can show nothing. Sign in with a token that has VIEW.')} />
        </main>
      </>
    );
  }
  if (error && !config) {
    return (
      <>
        {header}
        <main id="main" tabIndex={-1} className="content">
          <ErrorBox error={error} retry={reloadConfig} />
        </main>
      </>
    );
  }
  if (!config) return <Loading />;

  const ctx: Ctx = { api, session, token, config, reloadConfig, can: (p) => token.permissions.includes(p) };
  const top = route.segments[0] ?? '';
  const sandbox = config.environment === 'SANDBOX';
  let page;
  if (top === '') page = <Overview />;
  else if (top === 'customers' && route.segments[1]) page = <CustomerPage id={route.segments[1]} />;
  else if (top === 'customers') page = <Customers query={route.query} />;
  else if (top === 'payments' && route.segments[1]) page = <PaymentPage id={route.segments[1]} />;
  else if (top === 'wallets' && route.segments[1]) page = <WalletPage id={route.segments[1]} />;
  else if (top === 'payments') page = <Payments query={route.query} />;
  else if (top === 'agents') page = route.segments[1] ? <AgentPage id={route.segments[1]} /> : <Agents />;
  else if (top === 'cards' && route.segments[1]) page = <CardPage id={route.segments[1]} />;
  else if (top === 'cards') page = <Cards />;
  else if (top === 'webhooks') page = <Webhooks query={route.query} />;
  else if (top === 'configuration') page = <Configuration />;
  else if (top === 'accounts' && route.segments[1]) page = <AccountPage id={route.segments[1]} />;
  else if (top === 'pay-ins') page = <HeldCredits />;
  else if (top === 'stablecoins') page = <Stablecoins id={route.segments[1]} />;
  else if (top === 'sandbox' && sandbox) page = <Sandbox />;
  else page = <ErrorBox error={new Error('There is no such page.')} />;

  return (
    <AppContext.Provider value={ctx}>
      {header}
      <div className="layout">
        <nav id="nav" className={`sidenav ${menuOpen ? 'open' : ''}`} aria-label="Main">
          <ul>
            {NAV.filter((n) => !n.sandbox || sandbox).map((n) => {
              const active = n.path === '/' ? top === '' : route.path.startsWith(n.path);
              return (
                <li key={n.path}>
                  <a href={href(n.path)} aria-current={active ? 'page' : undefined}>
                    {n.label}
                  </a>
                </li>
              );
            })}
          </ul>
        </nav>
        <main id="main" tabIndex={-1} className="content">
          {page}
        </main>
      </div>
    </AppContext.Provider>
  );
}

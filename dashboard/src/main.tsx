import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { Session } from './session';
import './styles.css';

const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
const base = meta('svc-api-base');
const idle = Number(meta('svc-idle-minutes'));
// Placeholders are filled in by the server; under `vite dev` they stay as written.
const apiBase = base.startsWith('/') ? base.replace(/\/$/, '') : '/2025-10-13';
const idleMinutes = Number.isFinite(idle) && idle > 0 ? idle : 15;

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App apiBase={apiBase} session={new Session(idleMinutes * 60_000)} />
  </StrictMode>,
);

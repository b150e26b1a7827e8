import { useEffect, useState } from 'react';

/**
 * Hash routes (`#/payments/Transaction:…?status=FAILED`): the server serves one page at /dashboard,
 * and resource ids (never secrets) are the only things in URLs.
 */
export interface Route {
  path: string;
  segments: string[];
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const [p = '/', q = ''] = raw.split('?', 2) as [string?, string?];
  const segments = p.split('/').filter(Boolean).map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  return { path: `/${segments.join('/')}`, segments, query: new URLSearchParams(q) };
}

export function href(path: string, query?: Record<string, string | undefined>): string {
  const enc = path.split('/').map((s) => encodeURIComponent(s).replace(/%3A/gi, ':')).join('/');
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v) qs.set(k, v);
  const s = qs.toString();
  return `#${enc}${s ? `?${s}` : ''}`;
}

export function navigate(path: string, query?: Record<string, string | undefined>): void {
  window.location.hash = href(path, query);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

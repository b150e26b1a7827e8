/**
 * The signed-in session. Credentials live only in this object's memory: never in localStorage,
 * sessionStorage, cookies, URLs or logs. A reload or sign-out forgets them; so does inactivity.
 */

export type Permission = 'VIEW' | 'TRANSACT' | 'MANAGE';

export interface TokenInfo {
  id: string;
  name: string;
  clientId: string;
  permissions: Permission[];
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

export type SessionState =
  | { status: 'signedOut'; notice?: string }
  | { status: 'signedIn'; token: TokenInfo; lastActivity: number };

type Listener = (s: SessionState) => void;

export class Session {
  private creds: Credentials | undefined;
  private state: SessionState = { status: 'signedOut' };
  private listeners = new Set<Listener>();

  constructor(readonly idleMs: number) {}

  get current(): SessionState {
    return this.state;
  }

  /** Basic credentials for the next API call, if signed in. */
  credentials(): Credentials | undefined {
    return this.creds;
  }

  signIn(creds: Credentials, token: TokenInfo, now: number): void {
    this.creds = { ...creds };
    this.set({ status: 'signedIn', token, lastActivity: now });
  }

  /** Forgets the credentials; `notice` tells the person why (shown on the sign-in page). */
  signOut(notice?: string): void {
    if (this.creds) {
      // Overwrite before dropping, so the secret does not linger in a retained object.
      this.creds.clientSecret = '';
      this.creds.clientId = '';
    }
    this.creds = undefined;
    this.set(notice ? { status: 'signedOut', notice } : { status: 'signedOut' });
  }

  /** Input from the person (key, pointer): the idle clock restarts. */
  touch(now: number): void {
    if (this.state.status === 'signedIn') this.state = { ...this.state, lastActivity: now };
  }

  isIdle(now: number): boolean {
    return this.state.status === 'signedIn' && now - this.state.lastActivity >= this.idleMs;
  }

  /** Signs out when idle; returns whether it did. */
  checkIdle(now: number): boolean {
    if (!this.isIdle(now)) return false;
    this.signOut(`Signed out after ${Math.round(this.idleMs / 60_000)} minutes without activity.`);
    return true;
  }

  can(p: Permission): boolean {
    return this.state.status === 'signedIn' && this.state.token.permissions.includes(p);
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private set(s: SessionState) {
    this.state = s;
    for (const l of this.listeners) l(s);
  }
}

/** `Basic base64(id:secret)` with UTF-8 bytes (btoa alone fails outside Latin-1). */
export function basicHeader(c: Credentials): string {
  const bytes = new TextEncoder().encode(`${c.clientId}:${c.clientSecret}`);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return `Basic ${btoa(bin)}`;
}

import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { sessionState, WalletTables, type WalletSession } from '../src/pages/Wallet';

const now = new Date('2026-12-13T12:00:00Z');
const session = (over: Partial<WalletSession>): WalletSession => ({ id: 'AuthSession:1', type: 'EMAIL_OTP', credentialId: 'AuthMethod:1', expiresAt: '2026-12-13T12:10:00Z', createdAt: '2026-12-13T11:55:00Z', ...over });

describe('embedded wallet page', () => {
  it('tells a live session from an expired or revoked one', () => {
    expect(sessionState(session({}), now)).toBe('ACTIVE');
    expect(sessionState(session({ expiresAt: '2026-12-13T12:00:00Z' }), now)).toBe('EXPIRED');
    expect(sessionState(session({ revokedAt: '2026-12-13T11:58:00Z' }), now)).toBe('REVOKED');
  });

  it('lists credentials, sessions and delegated keys; a revoke button only for live sessions and only with MANAGE', () => {
    const data = {
      credentials: [{ id: 'AuthMethod:1', type: 'EMAIL_OTP', nickname: 'ada@example.com', createdAt: '2026-12-13T11:00:00Z', updatedAt: '2026-12-13T11:00:00Z' }],
      sessions: [session({ id: 'AuthSession:live' }), session({ id: 'AuthSession:gone', revokedAt: '2026-12-13T11:59:00Z' })],
      keys: [{ id: 'DelegatedKey:1', cardId: 'Card:9', nickname: 'card key', status: 'ACTIVE', publicKey: '02abcdef0123456789', createdAt: '2026-12-13T11:00:00Z' }],
      now,
    };
    const manage = renderToStaticMarkup(createElement(WalletTables, { ...data, onRevoke: () => undefined }));
    expect(manage).toContain('ada@example.com');
    expect(manage).toContain('card key');
    expect(manage).toContain('Card:9');
    expect(manage).toContain('Revoke session AuthSession:live');
    expect(manage).not.toContain('Revoke session AuthSession:gone');
    const view = renderToStaticMarkup(createElement(WalletTables, data));
    expect(view).not.toContain('Revoke');
    expect(renderToStaticMarkup(createElement(WalletTables, { credentials: [], sessions: [], keys: [], now }))).toContain('No delegated keys.');
  });
});

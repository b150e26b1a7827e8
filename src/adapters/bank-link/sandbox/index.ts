import { createHash, randomBytes } from 'node:crypto';
import { BankLinkError, type BankLinkAdapter, type LinkedBankAccount, type LinkToken, type LinkTokenRequest, type PublicTokenExchange } from '../port.js';

/**
 * The sandbox bank link (README "Sandbox: bank linking"). Link tokens `link-sandbox-<hex>` last
 * 4 hours; the link page (`linkUrl`, served by the service) offers two accounts of "Sandbox Bank",
 * `sandbox-checking` and `sandbox-savings`, and shows the public token for the one chosen:
 * `public-sandbox-<digest of link token and account>`. Any other public token is refused as
 * INVALID_PUBLIC_TOKEN. Account numbers are derived from the link token (12 digits ending in 100,
 * so no sandbox payout magic value applies); the routing number is a valid ABA number.
 */
export const SANDBOX_ACCOUNTS = [
  { id: 'sandbox-checking', name: 'Sandbox Checking', type: 'CHECKING' as const },
  { id: 'sandbox-savings', name: 'Sandbox Savings', type: 'SAVINGS' as const },
];
const LINK_TTL_MS = 4 * 60 * 60 * 1000;
const ROUTING_NUMBER = '011401533';

const digest = (...parts: string[]) => createHash('sha256').update(parts.join(':')).digest('hex');

export function sandboxPublicToken(linkToken: string, accountId: string): string {
  return `public-sandbox-${digest('public', linkToken, accountId).slice(0, 32)}`;
}

function accountNumberOf(linkToken: string, accountId: string): string {
  const n = BigInt(`0x${digest('account', linkToken, accountId).slice(0, 15)}`) % 1_000_000_000n;
  return `${n.toString().padStart(9, '0')}100`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The link page: pick an account, get the public token to POST to the callback URL. */
export function sandboxLinkPage(linkToken: string, chosen?: { accountId: string; publicToken: string }): string {
  const body = chosen
    ? `<p>Linked <b>${escapeHtml(chosen.accountId)}</b>.</p><p>Public token:</p><pre id="public-token">${escapeHtml(chosen.publicToken)}</pre><p>POST it to the callback URL of your link token as <code>{"publicToken": "…", "accountId": "${escapeHtml(chosen.accountId)}"}</code>.</p>`
    : `<form method="post"><p>Sign in to <b>Sandbox Bank</b> and choose an account:</p>${SANDBOX_ACCOUNTS.map(
        (a, i) => `<label><input type="radio" name="accountId" value="${a.id}"${i === 0 ? ' checked' : ''}> ${a.name}</label><br>`,
      ).join('')}<button type="submit">Link account</button></form>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbox bank link</title></head><body><h1>Sandbox bank link</h1><p>Link token <code>${escapeHtml(linkToken)}</code></p>${body}</body></html>`;
}

export function createSandboxBankLink(opts: { now: () => Date; linkPageUrl: (linkToken: string) => string }): BankLinkAdapter {
  return {
    id: 'sandbox',
    async createLinkToken(_req: LinkTokenRequest): Promise<LinkToken> {
      const linkToken = `link-sandbox-${randomBytes(16).toString('hex')}`;
      return { linkToken, expiresAt: new Date(opts.now().getTime() + LINK_TTL_MS), requestId: `sandbox-${randomBytes(6).toString('hex')}`, linkUrl: opts.linkPageUrl(linkToken) };
    },
    async exchangePublicToken(req: PublicTokenExchange): Promise<LinkedBankAccount> {
      const account = req.accountId ? SANDBOX_ACCOUNTS.find((a) => a.id === req.accountId) : SANDBOX_ACCOUNTS.find((a) => sandboxPublicToken(req.linkToken, a.id) === req.publicToken);
      if (req.accountId && !account) throw new BankLinkError('ACCOUNT_NOT_FOUND', `No account ${req.accountId} at Sandbox Bank.`);
      if (!account || sandboxPublicToken(req.linkToken, account.id) !== req.publicToken) throw new BankLinkError('INVALID_PUBLIC_TOKEN', 'The public token was not issued for this link token.');
      return {
        providerAccountId: account.id,
        currency: 'USD',
        accountNumber: accountNumberOf(req.linkToken, account.id),
        routingNumber: ROUTING_NUMBER,
        bankAccountType: account.type,
        bankName: 'Sandbox Bank',
        accountName: account.name,
      };
    },
  };
}

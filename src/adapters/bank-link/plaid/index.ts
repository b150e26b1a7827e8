import { AdapterConfigError, type AdapterContext, type CallOptions } from '../../common.js';
import { BankLinkError, type BankLinkAdapter, type LinkedBankAccount, type LinkToken, type LinkTokenRequest, type PublicTokenExchange } from '../port.js';

/**
 * Plaid (https://plaid.com/docs/api/): Link tokens from `/link/token/create` (product `auth`),
 * the public token exchanged at `/item/public_token/exchange`, the verified ACH numbers read with
 * `/auth/get`, and the Item removed at once with `/item/remove` (the service keeps no access token).
 *
 * Settings (`ADAPTER_PLAID_*`): CLIENT_ID and SECRET (required), ENVIRONMENT `sandbox` or
 * `production` (default sandbox), or BASE_URL to reach another host; CLIENT_NAME shown in Link
 * (default "svc-payments"); COUNTRY_CODES comma-separated (default US); LANGUAGE (default en).
 */
const HOSTS: Record<string, string> = { sandbox: 'https://sandbox.plaid.com', production: 'https://production.plaid.com' };

interface PlaidErrorBody {
  error_type?: string;
  error_code?: string;
  error_message?: string;
  request_id?: string;
}

/** Plaid error codes meaning "this token or account cannot be used", not "try again". */
const INVALID_TOKEN_CODES = new Set(['INVALID_PUBLIC_TOKEN', 'INVALID_LINK_TOKEN', 'ITEM_NOT_FOUND', 'INVALID_ACCESS_TOKEN']);

export function createPlaidBankLink(settings: Record<string, string>, context: Pick<AdapterContext, 'logger' | 'clock' | 'timeoutMs'>): BankLinkAdapter {
  const clientId = settings.CLIENT_ID;
  const secret = settings.SECRET;
  if (!clientId || !secret) throw new AdapterConfigError('ADAPTER_PLAID_CLIENT_ID and ADAPTER_PLAID_SECRET are required');
  const environment = settings.ENVIRONMENT ?? 'sandbox';
  const base = (settings.BASE_URL ?? HOSTS[environment])?.replace(/\/+$/, '');
  if (!base) throw new AdapterConfigError(`ADAPTER_PLAID_ENVIRONMENT must be sandbox or production, not ${environment}`);
  if (settings.BASE_URL && !/^https?:\/\//.test(settings.BASE_URL)) throw new AdapterConfigError('ADAPTER_PLAID_BASE_URL must be an http(s) URL');
  const clientName = settings.CLIENT_NAME ?? 'svc-payments';
  const countryCodes = (settings.COUNTRY_CODES ?? 'US').split(',').map((c) => c.trim().toUpperCase()).filter(Boolean);
  const language = settings.LANGUAGE ?? 'en';

  async function call<T>(path: string, body: Record<string, unknown>, opts?: CallOptions): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'plaid-version': '2020-09-14' },
        body: JSON.stringify({ client_id: clientId, secret, ...body }),
        signal: opts?.signal ?? AbortSignal.timeout(context.timeoutMs),
      });
    } catch (err) {
      throw new BankLinkError('PROVIDER_ERROR', `Plaid ${path} could not be reached: ${(err as Error).message}`, true);
    }
    const json = (await res.json().catch(() => ({}))) as T & PlaidErrorBody;
    if (res.ok) return json;
    const code = json.error_code ?? `HTTP_${res.status}`;
    context.logger.warn({ path, status: res.status, errorType: json.error_type, errorCode: code, requestId: json.request_id }, 'plaid refused a request');
    if (INVALID_TOKEN_CODES.has(code)) throw new BankLinkError('INVALID_PUBLIC_TOKEN', `Plaid: ${json.error_message ?? code}`);
    throw new BankLinkError('PROVIDER_ERROR', `Plaid ${path}: ${code}${json.error_message ? ` (${json.error_message})` : ''}`, res.status >= 500 || res.status === 429);
  }

  return {
    id: 'plaid',
    async createLinkToken(req: LinkTokenRequest, opts?: CallOptions): Promise<LinkToken> {
      const out = await call<{ link_token: string; expiration: string; request_id?: string }>(
        '/link/token/create',
        {
          client_name: clientName,
          language,
          country_codes: countryCodes,
          user: { client_user_id: req.reference, ...(req.customerName ? { legal_name: req.customerName } : {}) },
          products: ['auth'],
          ...(req.redirectUri ? { redirect_uri: req.redirectUri } : {}),
        },
        opts,
      );
      return { linkToken: out.link_token, expiresAt: new Date(out.expiration), ...(out.request_id ? { requestId: out.request_id } : {}) };
    },

    async exchangePublicToken(req: PublicTokenExchange, opts?: CallOptions): Promise<LinkedBankAccount> {
      const { access_token: accessToken } = await call<{ access_token: string; item_id: string }>('/item/public_token/exchange', { public_token: req.publicToken }, opts);
      try {
        const auth = await call<{
          accounts: Array<{ account_id: string; name?: string; official_name?: string | null; type: string; subtype?: string | null }>;
          numbers: { ach?: Array<{ account_id: string; account: string; routing: string }> };
          item?: { institution_name?: string | null };
        }>('/auth/get', { access_token: accessToken, ...(req.accountId ? { options: { account_ids: [req.accountId] } } : {}) }, opts);
        const ach = auth.numbers.ach ?? [];
        const depository = auth.accounts.filter((a) => a.type === 'depository' && ach.some((n) => n.account_id === a.account_id));
        const account = req.accountId ? depository.find((a) => a.account_id === req.accountId) : depository[0];
        if (!account) {
          throw req.accountId
            ? new BankLinkError('ACCOUNT_NOT_FOUND', `Plaid returned no ACH numbers for account ${req.accountId}.`)
            : new BankLinkError('NO_ELIGIBLE_ACCOUNT', 'The linked Item has no depository account with ACH numbers.');
        }
        const numbers = ach.find((n) => n.account_id === account.account_id)!;
        return {
          providerAccountId: account.account_id,
          currency: 'USD',
          accountNumber: numbers.account,
          routingNumber: numbers.routing,
          bankAccountType: account.subtype === 'savings' ? 'SAVINGS' : 'CHECKING',
          ...(auth.item?.institution_name ? { bankName: auth.item.institution_name } : {}),
          ...(account.name ? { accountName: account.name } : {}),
        };
      } finally {
        // The numbers are all the service needs: no access token is kept.
        await call('/item/remove', { access_token: accessToken }, opts).catch((err: unknown) => context.logger.warn({ err }, 'plaid /item/remove failed'));
      }
    },
  };
}

import { createSandboxInvoice } from '../../deposits/sandbox/lightning-invoice.js';
import { UmaCounterpartyError, type PayerDataField, type UmaCounterpartyAdapter, type UmaCurrencyOption, type UmaLookupRequest, type UmaPayRequest, type UmaPayTerms, type UmaReceiver } from '../port.js';

/**
 * The sandbox UMA directory (README "Sandbox: UMA test receivers"). Deterministic test receivers at
 * `UMA_SANDBOX_DOMAIN` (default `sandbox.uma`):
 *   $alice   USD and EUR; asks for EMAIL (optional)
 *   $bob     USD and MXN; FULL_NAME and BIRTH_DATE mandatory
 *   $carol   BTC only (sats)
 *   $refuse  400 SENDER_NOT_ACCEPTED          $fail      400 LOOKUP_REQUEST_FAILED
 *   $badcert 400 CERT_CHAIN_INVALID           $garbled   400 PARSE_LNURLP_RESPONSE_ERROR
 *   $invalid 400 INVALID_RECEIVER             $legacy    412 UNSUPPORTED_UMA_VERSION
 *   $down    424 LNURLP_REQUEST_FAILED        $nokey     424 COUNTERPARTY_PUBKEY_FETCH_ERROR
 *   $payfail looks up like alice; its pay request fails (424 PAYREQ_REQUEST_FAILED)
 *   anyone else, and any other domain: 404 UMA_NOT_FOUND
 * alice, bob and carol take a three-digit suffix choosing the settlement outcome as the sandbox rail's
 * magic values (A9): `$alice004@sandbox.uma` settles and then fails delivery, `$bob002` fails at once, ...
 * The platform's own customers are answered by the UMA service before this adapter (incoming payments).
 */
const MSATS_PER_MINOR: Record<string, number> = { USD: 10_000, EUR: 10_800, MXN: 580, BTC: 1_000 };
const DECIMALS: Record<string, number> = { USD: 2, EUR: 2, MXN: 2, BTC: 8 };

const currency = (code: string, min: bigint, max: bigint): UmaCurrencyOption => ({ code, decimals: DECIMALS[code]!, multiplier: MSATS_PER_MINOR[code]!, min, max });

const RECEIVERS: Record<string, { currencies: UmaCurrencyOption[]; payerData: PayerDataField[] }> = {
  alice: { currencies: [currency('USD', 1n, 10_000_000n), currency('EUR', 1n, 10_000_000n)], payerData: [{ name: 'EMAIL', mandatory: false }] },
  bob: {
    currencies: [currency('USD', 100n, 5_000_000n), currency('MXN', 1_000n, 50_000_000n)],
    payerData: [{ name: 'FULL_NAME', mandatory: true }, { name: 'BIRTH_DATE', mandatory: true }],
  },
  carol: { currencies: [currency('BTC', 1_000n, 100_000_000n)], payerData: [] },
  payfail: { currencies: [currency('USD', 1n, 10_000_000n)], payerData: [] },
};

const FAILURES: Record<string, UmaCounterpartyError> = {
  refuse: new UmaCounterpartyError('SENDER_NOT_ACCEPTED', 400, 'The receiving VASP does not accept payments from this sender.'),
  fail: new UmaCounterpartyError('LOOKUP_REQUEST_FAILED', 400, 'The receiving VASP rejected the lookup request.'),
  badcert: new UmaCounterpartyError('CERT_CHAIN_INVALID', 400, "The receiving VASP's certificate chain is not valid."),
  garbled: new UmaCounterpartyError('PARSE_LNURLP_RESPONSE_ERROR', 400, "The receiving VASP's LNURL-p response could not be parsed."),
  invalid: new UmaCounterpartyError('INVALID_RECEIVER', 400, 'The receiver is not a valid UMA receiver.'),
  legacy: new UmaCounterpartyError('UNSUPPORTED_UMA_VERSION', 412, 'The receiving VASP speaks no UMA version this service supports.'),
  down: new UmaCounterpartyError('LNURLP_REQUEST_FAILED', 424, 'The receiving VASP could not be reached.', true),
  nokey: new UmaCounterpartyError('COUNTERPARTY_PUBKEY_FETCH_ERROR', 424, "The receiving VASP's public keys could not be fetched.", true),
};

const USER_RE = /^\$([a-z]+?)(\d{3})?@(.+)$/;

export function createSandboxUmaDirectory(opts: { domain: string; now: () => Date; termsTtlSeconds: number }): UmaCounterpartyAdapter {
  function receiverOf(address: string): { name: string; suffix: string | undefined } | undefined {
    const m = USER_RE.exec(address);
    if (!m || m[3] !== opts.domain) return undefined;
    return { name: m[1]!, suffix: m[2] };
  }

  return {
    id: 'sandbox',
    async lookup(req: UmaLookupRequest): Promise<UmaReceiver> {
      const who = receiverOf(req.receiverUmaAddress);
      if (who && !who.suffix && FAILURES[who.name]) throw FAILURES[who.name]!;
      const entry = who ? RECEIVERS[who.name] : undefined;
      if (!entry) throw new UmaCounterpartyError('UMA_NOT_FOUND', 404, 'No receiver has this UMA address.');
      return {
        receiverUmaAddress: req.receiverUmaAddress,
        currencies: entry.currencies,
        requiredPayerDataFields: entry.payerData,
        counterparty: { directory: 'sandbox', receiver: who!.name, outcome: who!.suffix ?? null },
      };
    },
    async payRequest(req: UmaPayRequest): Promise<UmaPayTerms> {
      const who = receiverOf(req.receiverUmaAddress);
      const entry = who ? RECEIVERS[who.name] : undefined;
      if (!entry) throw new UmaCounterpartyError('UMA_NOT_FOUND', 404, 'No receiver has this UMA address.');
      if (who!.name === 'payfail') throw new UmaCounterpartyError('PAYREQ_REQUEST_FAILED', 424, 'The receiving VASP did not answer the pay request.', true);
      const option = entry.currencies.find((c) => c.code === req.currency);
      if (!option) throw new UmaCounterpartyError('INVALID_CURRENCY', 400, `The receiver does not take ${req.currency}.`);
      if (req.amount < option.min || req.amount > option.max) {
        throw new UmaCounterpartyError('AMOUNT_OUT_OF_RANGE', 400, `The receiver takes ${option.min} to ${option.max} ${option.code} minor units.`);
      }
      const amountMsats = req.amount * BigInt(option.multiplier);
      const now = opts.now();
      const { invoice } = createSandboxInvoice({ amountMsats, seed: req.idempotencyKey, description: `UMA payment to ${req.receiverUmaAddress}`, createdAt: now, expirySeconds: opts.termsTtlSeconds });
      return {
        invoice,
        amountMsats,
        multiplier: option.multiplier,
        receiverFeeMsats: 0n,
        expiresAt: new Date(now.getTime() + opts.termsTtlSeconds * 1000),
        counterpartyInformation: { FULL_NAME: `${who!.name[0]!.toUpperCase()}${who!.name.slice(1)} Sandbox` },
      };
    },
  };
}

import { createHmac } from 'node:crypto';
import { bech32m } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1';
import { base58, base58check, checksumAddress } from '../../../platform/crypto-addresses.js';
import { matchKeyFor, type DepositDetector, type FundingInstructionOut, type InstructionsRequest } from '../port.js';
import { createSandboxInvoice } from './lightning-invoice.js';

/**
 * Sandbox deposit detector. Addresses are derived per quote and network (HMAC of the quote id), so
 * every quote has its own; they are well-formed for their network but nobody holds their keys.
 * Lightning gets a signed BOLT11 invoice for exactly the amount (sats); USD gets the sandbox FBO
 * account below, over RTP and FedNow, with a unique reference. Deposits are reported by
 * POST /sandbox/deposits (README "Sandbox: real-time funding").
 */
export const SANDBOX_FBO_ACCOUNT = { accountNumber: '9900001234', routingNumber: '021000021', bankName: 'Sandbox FBO Bank' };

const WALLET_TYPE: Record<string, string> = { SOLANA: 'SOLANA_WALLET', BASE: 'BASE_WALLET', POLYGON: 'POLYGON_WALLET', ETHEREUM: 'ETHEREUM_WALLET', TRON: 'TRON_WALLET', SPARK: 'SPARK_WALLET' };

function seedBytes(quoteId: string, network: string, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let filled = 0;
  for (let i = 0; filled < length; i++) {
    const block = createHmac('sha256', 'svc-sandbox-deposits').update(`${quoteId}|${network}|${i}`).digest();
    out.set(block.subarray(0, Math.min(block.length, length - filled)), filled);
    filled += block.length;
  }
  return out;
}

function addressFor(quoteId: string, network: string): string {
  switch (network) {
    case 'SOLANA':
      return base58.encode(seedBytes(quoteId, network, 32));
    case 'TRON':
      return base58check.encode(Uint8Array.from([0x41, ...seedBytes(quoteId, network, 20)]));
    case 'SPARK': {
      const pubkey = secp256k1.getPublicKey(seedBytes(quoteId, network, 32), true);
      return bech32m.encode('spark', bech32m.toWords(Uint8Array.from([0x0a, 0x21, ...pubkey])), false);
    }
    default:
      return checksumAddress(`0x${Buffer.from(seedBytes(quoteId, network, 20)).toString('hex')}`);
  }
}

/** 16 characters from an unambiguous alphabet: fits RTP/FedNow remittance fields. */
function referenceFor(quoteId: string): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return `RTF${Array.from(seedBytes(quoteId, 'REFERENCE', 13), (b) => alphabet[b % alphabet.length]).join('')}`;
}

export function createSandboxDepositDetector(): DepositDetector {
  return {
    id: 'sandbox',
    instructionsFor(req: InstructionsRequest): FundingInstructionOut[] {
      const out: FundingInstructionOut[] = [];
      const fiatNetworks = req.networks.filter((n) => n === 'RTP' || n === 'FEDNOW');
      if (fiatNetworks.length > 0) {
        const reference = referenceFor(req.quoteId);
        out.push({
          network: fiatNetworks.join(','),
          asset: req.currency,
          matchKey: matchKeyFor('REFERENCE', reference),
          wire: {
            instructionsNotes: `Send exactly the amount over ${fiatNetworks.join(' or ')} with reference ${reference}; other amounts are credited to the balance and do not execute the payment.`,
            isPlatformAccount: req.isPlatformAccount,
            accountOrWalletInfo: { accountType: 'USD_ACCOUNT', assetType: req.currency, address: SANDBOX_FBO_ACCOUNT.accountNumber, ...SANDBOX_FBO_ACCOUNT, bankAccountType: 'CHECKING', paymentRails: fiatNetworks, reference },
          },
        });
      }
      for (const network of req.networks) {
        if (network === 'RTP' || network === 'FEDNOW') continue;
        if (network === 'LIGHTNING') {
          const expirySeconds = Math.max(1, Math.round((req.expiresAt.getTime() - req.createdAt.getTime()) / 1000));
          const { invoice } = createSandboxInvoice({ amountMsats: req.amount * 1000n, seed: req.quoteId, description: `Funding of ${req.quoteId}`, createdAt: req.createdAt, expirySeconds });
          out.push({
            network,
            asset: req.currency,
            matchKey: matchKeyFor('INVOICE', invoice),
            wire: { instructionsNotes: 'Pay this invoice (it is for exactly the amount).', isPlatformAccount: req.isPlatformAccount, accountOrWalletInfo: { accountType: 'LIGHTNING', assetType: req.currency, address: invoice, invoice } },
          });
          continue;
        }
        const address = addressFor(req.quoteId, network);
        out.push({
          network,
          asset: req.currency,
          matchKey: matchKeyFor('ADDRESS', address, network),
          wire: {
            instructionsNotes: `Send exactly the amount of ${req.currency} on ${network}; assets sent on another network are lost.`,
            isPlatformAccount: req.isPlatformAccount,
            accountOrWalletInfo: { accountType: WALLET_TYPE[network], assetType: req.currency, address, network },
          },
        });
      }
      return out;
    },
    matchKeyOf(d) {
      if (d.reference) return matchKeyFor('REFERENCE', d.reference);
      if (d.invoice) return matchKeyFor('INVOICE', d.invoice);
      if (d.address && d.network) return matchKeyFor('ADDRESS', d.address, d.network);
      return undefined;
    },
  };
}

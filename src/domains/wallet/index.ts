import type { DomainModule } from '../../platform/module.js';
import { walletRoutes } from './wallet.routes.js';
import { sweepOwedWallets } from './wallet.provisioning.js';
import { pollWalletCredits, sweepWalletCredits } from './wallet.incoming.js';

/** Embedded wallets (issue 28, REF "Global Accounts"): credentials, sessions, delegated keys, export and privacy. */
export const walletModule: DomainModule = {
  name: 'wallet',
  routes: (api) => walletRoutes(api),
  // Anchor 28b: what Postgres records as owed — wallets for existing customers, reported credits not yet booked.
  loops: [
    { name: 'wallet-provisioning', intervalMs: (d) => d.config.WALLET_SWEEP_INTERVAL_MS, run: (d) => sweepOwedWallets(d), batch: (d) => d.config.WALLET_SWEEP_BATCH },
    { name: 'wallet-credits', intervalMs: (d) => d.config.WALLET_SWEEP_INTERVAL_MS, run: (d) => sweepWalletCredits(d), batch: (d) => d.config.WALLET_SWEEP_BATCH },
    { name: 'wallet-credit-poll', intervalMs: (d) => d.config.WALLET_SWEEP_INTERVAL_MS, run: (d) => pollWalletCredits(d), batch: (d) => d.config.WALLET_CREDIT_POLL_BATCH },
  ],
};

export { provisionEmbeddedWallet } from './wallet.service.js';
export { recordOwedWallets, sweepOwedWallets } from './wallet.provisioning.js';
export { bindWalletCreditWriter, pollWalletCredits, sweepWalletCredits } from './wallet.incoming.js';
export { gateContactChange } from './contact-sync.service.js';
/** For card authorization (cards domain): the ACTIVE delegated key of a wallet-funded card, or null. */
export { delegatedKeyFor, signCardAuthorization } from './delegated-keys.service.js';
export { walletExecutionInstructions, requireWalletStamp } from './wallet.money.js';
export type { EmbeddedWalletConfig } from './wallet.model.js';
export { EMBEDDED_WALLET } from './wallet.model.js';

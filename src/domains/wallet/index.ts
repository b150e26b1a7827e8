import type { DomainModule } from '../../platform/module.js';
import { walletRoutes } from './wallet.routes.js';

/** Embedded wallets (issue 28, REF "Global Accounts"): credentials, sessions, delegated keys, export and privacy. */
export const walletModule: DomainModule = {
  name: 'wallet',
  routes: (api) => walletRoutes(api),
};

export { provisionEmbeddedWallet, setEmbeddedWalletConfigFromPatch } from './wallet.service.js';
/** For card authorization (cards domain): the ACTIVE delegated key of a wallet-funded card, or null. */
export { delegatedKeyFor } from './delegated-keys.service.js';
export { walletExecutionInstructions, requireWalletStamp } from './wallet.money.js';
export type { EmbeddedWalletConfig } from './wallet.model.js';

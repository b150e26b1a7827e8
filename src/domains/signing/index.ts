import type { DomainModule } from '../../platform/module.js';
import { signingRoutes } from './signing.routes.js';

/** Signing credentials and the signed-retry check other domains (cards) call. */
export const signingModule: DomainModule = {
  name: 'signing',
  routes: (api) => signingRoutes(api),
};

export {
  consumeSignedChallenge, hasSignatureHeaders, parseWalletStamp, issueSignedChallenge, signatureHeadersOf, verifySignedRetry,
  type SignatureHeaders, type SignedRequestChallenge, type SignedTarget, type SignerSource,
} from './signing.service.js';

import { createContext, useContext } from 'react';
import type { Api } from './api';
import type { Permission, Session, TokenInfo } from './session';

export interface PlatformConfig {
  id: string;
  name: string;
  environment: 'SANDBOX' | 'PRODUCTION';
  webhookEndpoint?: string | null;
  webhookPublicKey: string;
  supportedCurrencies: Array<{ currencyCode: string; minAmount: number; maxAmount: number }>;
  feeConfigs: FeeConfig[];
}

export interface FeeConfig {
  id: string;
  feeType: string;
  rail?: string;
  direction?: string;
  originator?: string;
  sourceCurrency?: string | null;
  variableFeeBps: number;
  fixedFee: { amount: number; currency: string };
  updatedAt: string;
}

export interface Ctx {
  api: Api;
  session: Session;
  token: TokenInfo;
  config: PlatformConfig;
  reloadConfig: () => Promise<void>;
  can: (p: Permission) => boolean;
}

export const AppContext = createContext<Ctx | null>(null);

export function useApp(): Ctx {
  const c = useContext(AppContext);
  if (!c) throw new Error('outside the signed-in app');
  return c;
}

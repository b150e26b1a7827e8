/** Who may call what: below every domain (src/platform/principal.ts), since the auth hook needs it. */
export { PERMISSIONS, type Permission, type Principal } from '../../platform/principal.js';

export interface PlatformFlags {
  isRegulated: boolean;
  counterpartyRules: boolean;
  scaRegion: boolean;
}

export interface Platform extends PlatformFlags {
  id: string;
  name: string;
  webhookEndpoint: string | null;
  umaDomain: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const PERMISSIONS = ['VIEW', 'TRANSACT', 'MANAGE'] as const;
export type Permission = (typeof PERMISSIONS)[number];

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

/** Who is calling: resolved once per request by the auth hook. */
export interface Principal {
  platformId: string;
  credentialId: string;
  permissions: Permission[];
}

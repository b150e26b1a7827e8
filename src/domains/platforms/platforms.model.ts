/** Who may call what: below every domain (src/platform/principal.ts), since the auth hook needs it. */
export { PERMISSIONS, type Permission } from '../../platform/principal.js';

export interface PlatformFlags {
  isRegulated: boolean;
  counterpartyRules: boolean;
  scaRegion: boolean;
}

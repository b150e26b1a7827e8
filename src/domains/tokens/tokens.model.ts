import { PERMISSIONS, type Permission } from '../../platform/principal.js';

export { PERMISSIONS, type Permission };

/** A platform credential as the API shows it (REF's ApiToken); the secret hash never leaves the repo. */
export interface ApiToken {
  id: string;
  name: string;
  clientId: string;
  permissions: Permission[];
  createdAt: Date;
  updatedAt: Date;
}

/** Permissions in the API's canonical order, each once. */
export function normalisePermissions(given: readonly Permission[]): Permission[] {
  return PERMISSIONS.filter((p) => given.includes(p));
}

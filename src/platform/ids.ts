import { v7 as uuidv7, validate as uuidValidate } from 'uuid';

/** Resource type prefixes of the spec (Conventions) and decisions Part B §1. */
export type ResourceType =
  | 'Platform'
  | 'Credential'
  | 'Token'
  | 'Customer'
  | 'ExternalAccount'
  | 'InternalAccount'
  | 'Quote'
  | 'Transaction'
  | 'Card'
  | 'Verification'
  | 'BeneficialOwner'
  | 'Document'
  | 'Webhook'
  | 'WebhookAttempt'
  | 'Lookup'
  | 'Request'
  | 'ScaChallenge'
  | 'PlatformConfig'
  | 'FeeConfig'
  | 'LedgerEntry'
  | 'Journal'
  | 'Agent'
  | 'AgentAction'
  | 'Deposit'
  | 'FundingInstruction'
  | 'AgentDeviceCode'
  | 'SigningCredential'
  | 'ScaFactor'
  | 'ScaSession'
  | 'ScaFactorReset'
  | 'KycLink'
  | 'StatusChange'
  | 'SandboxSend'
  | 'Invitation'
  | 'BulkCustomerImport'
  | 'BankLink';

/** `<ResourceType>:<uuid>` with a time-ordered UUIDv7, so ids sort by creation. */
export function newId(type: ResourceType): string {
  return `${type}:${uuidv7()}`;
}

/** True when `value` is `<type>:<uuid>`; used to refuse malformed ids before they reach the database. */
export function isId(type: ResourceType, value: string): boolean {
  const prefix = `${type}:`;
  return value.startsWith(prefix) && uuidValidate(value.slice(prefix.length));
}

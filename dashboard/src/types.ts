import type { Currency } from './format';

export interface Amount {
  amount: number;
  currency: Currency;
}

export interface Transaction {
  id: string;
  status: string;
  type: string;
  direction?: string;
  customerId: string | null;
  platformCustomerId: string | null;
  source: Record<string, unknown> | null;
  destination: Record<string, unknown> | null;
  sentAmount: Amount;
  receivedAmount: Amount;
  exchangeRate: number;
  fees: number;
  platformFees: number;
  quoteId: string | null;
  paymentRail: string | null;
  description: string | null;
  failureReason?: string | null;
  /** The server's own cause where REF's failureReason has no value for it. */
  failureDetail?: string;
  settledAt: string | null;
  createdAt: string;
  updatedAt: string;
  refund: { reference: string | null; initiatedAt: string | null; settledAt: string | null; status: string; reason: string | null } | null;
}

export interface Quote {
  id: string;
  status: string;
  createdAt: string;
  expiresAt: string;
  sendingCurrency: Currency;
  receivingCurrency: Currency;
  totalSendingAmount: number;
  totalReceivingAmount: number;
  exchangeRate: number;
  feesIncluded: number;
  platformFeesIncluded: number;
  transactionId: string;
  destination: Record<string, unknown>;
}

export interface InternalAccount {
  id: string;
  customerId: string | null;
  type: string;
  status: string;
  balance: Amount;
  totalBalance: Amount;
}

export interface Customer {
  id: string;
  platformCustomerId: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  kycStatus?: string;
  kybStatus?: string;
  fullName?: string | null;
  email?: string | null;
  phoneNumber?: string | null;
  region?: string | null;
  currencies?: string[];
  umaAddress?: string;
  businessInfo?: { legalName?: string } | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookAttempt {
  attemptedAt: string;
  url: string;
  httpStatus: number | null;
  latencyMs: number;
  outcome: string;
  error: string | null;
}

export interface WebhookEvent {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
  deliveryStatus: string;
  attemptCount: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  attempts: WebhookAttempt[];
}

export const TRANSACTION_STATUSES = ['PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'] as const;
export const CUSTOMER_STATUSES = ['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED', 'HOLD'] as const;
export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED', 'UNDELIVERABLE'] as const;

export const customerName = (c: Customer) => (c.customerType === 'BUSINESS' ? c.businessInfo?.legalName : c.fullName) ?? '(no name)';
export const customerStatus = (c: Customer) => c.kycStatus ?? c.kybStatus ?? '';

import { defineLifecycle } from '../../platform/state-machine.js';

/** A bulk customer import (REF's `customers.bulk.*`): queued, worked row by row, then finished once. */
export const BULK_IMPORT_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;

export const bulkImportLifecycle = defineLifecycle({
  name: 'bulk-customer-import',
  label: 'The import',
  statuses: BULK_IMPORT_STATUSES,
  transitions: {
    start: { from: ['PENDING'], to: 'PROCESSING' },
    /** After the last row, whatever the share of failed rows. */
    complete: { from: ['PENDING', 'PROCESSING'], to: 'COMPLETED' },
    /** The job gave up (its attempts ran out). */
    fail: { from: ['PENDING', 'PROCESSING'], to: 'FAILED' },
  },
  terminal: ['COMPLETED', 'FAILED'],
});

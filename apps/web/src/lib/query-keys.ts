/**
 * Query keys that more than one feature touches. Every admin change is written to the audit log,
 * so whatever changes something in the admin area refreshes the log's pages too.
 */
export const AUDIT_KEY = ['admin', 'audit'] as const;

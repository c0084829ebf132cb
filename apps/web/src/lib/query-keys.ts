/**
 * Query keys that more than one feature touches. Every admin change is written to the audit log,
 * so whatever changes something in the admin area refreshes the log's pages too.
 */
export const AUDIT_KEY = ['admin', 'audit'] as const;

/** Support tickets (a player's and the staff's): a `support` notice heard live makes them stale. */
export const SUPPORT_KEY = ['support'] as const;

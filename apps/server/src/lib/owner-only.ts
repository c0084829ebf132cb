import { forbidden, type HttpError } from './errors.ts';

/**
 * Staff permissions never reach money or secrets indirectly. A setting that decides where
 * players' money goes, how much balance the site mints beyond what was paid, whose word the site
 * takes for a payment, a vote or a login, or a key the site holds for another service is the
 * owner's alone, even on a screen a staff member may otherwise edit (Платежи → Подключения under
 * `settings`, a vote top under `votes`…). A staff member's change of one is refused beside its
 * field; the same value sent back as it stands (the admin forms send every field) is no change.
 */
export function ownerOnly(text: string, field?: string): HttpError {
  return forbidden(text, { code: 'owner_only', ...(field === undefined ? {} : { field }) });
}

/** The owner: `is_admin`. Staff hold a role instead. */
export function isOwner(user: { is_admin: number }): boolean {
  return user.is_admin === 1;
}

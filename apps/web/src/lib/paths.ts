/** Addresses more than one feature links to. */

/** The «Пополнить баланс» page (features/payments); the header, the profile and the purchase modals link here. */
export const TOPUP_PATH = '/topup';

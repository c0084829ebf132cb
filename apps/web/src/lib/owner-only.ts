/**
 * Under a field a staff member may see but not change: what decides where players' money goes,
 * how much balance the site pays beyond what was paid, or whose word it takes for a payment, a vote
 * or a login is the owner's alone (the server refuses a staff member's change: 403 owner_only).
 */
export const OWNER_ONLY_HINT = 'Меняет только владелец сайта';

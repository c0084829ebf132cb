/** Tables of account security (login throttling, known devices); db/types.ts merges them. */

/**
 * Failed password checks of one account, from any address and whatever name or e-mail was
 * typed. A try is counted before the password is checked (and the count cleared when it was
 * right), so parallel guesses cannot slip past the delay.
 */
export interface LoginThrottleTable {
  user_id: number;
  failures: number;
  last_failure_at: number;
  /** Tries from an unknown device are refused unchecked until this moment. */
  next_allowed_at: number;
}

/** Browsers (the httpOnly `kubik_device` cookie) where the account logged in with its password. */
export interface KnownDevicesTable {
  user_id: number;
  /** sha256 of the cookie's value. */
  device_hash: string;
  user_agent: string | null;
  ip: string | null;
  created_at: number;
  last_seen_at: number;
}

export interface SecurityTables {
  login_throttle: LoginThrottleTable;
  known_devices: KnownDevicesTable;
}

/** What the site needs to know of one of AuthMe's hash algorithms, and how to check and make its hashes. */
export interface AuthMeMethod {
  /**
   * Where the salt lives: inside the hash ('embedded'), in AuthMe's own salt column ('column',
   * HashedPassword(hash, salt)), made from the player's name ('username'), or nowhere ('none').
   */
  readonly salt: 'embedded' | 'column' | 'username' | 'none';
  /** The check costs tens of milliseconds or more (bcrypt, Argon2, PBKDF2, phpass): run it in the password-check turn. */
  readonly slow: boolean;
  /** AuthMe's own page marks it «Do not use» or «Deprecated»: the admin can say so. */
  readonly weak: boolean;
  /**
   * Why no password can match this stored row under AuthMe's rules (in Russian, for the owner),
   * or null when the row has the shape of a real hash. Cheap: no hashing.
   */
  inspect(hash: string, salt: string | null): string | null;
  /** Whether the password matches; called only for rows inspect() found whole. name is lower case. */
  verify(password: string, hash: string, salt: string | null, name: string): Promise<boolean>;
  /** A new hash exactly as AuthMe would store it (name is lower case). */
  create(password: string, name: string, settings: AuthMeSettings): Promise<AuthMeHash>;
}

/** What AuthMe stores for a password: the hash column, and the salt column when the algorithm keeps its salt apart. */
export interface AuthMeHash {
  hash: string;
  salt: string | null;
}

/** The parts of AuthMe's config.yml that change how new hashes are made. */
export interface AuthMeSettings {
  /** ExternalBoardOptions.bCryptLog2Round: BCRYPT's cost (12 by default since 2021, 10 before). */
  bcryptCost: number;
  /** settings.security.pbkdf2Rounds: PBKDF2's and PBKDF2BASE64's iterations (default 10000). */
  pbkdf2Rounds: number;
  /** settings.security.doubleMD5SaltLength: SALTED2MD5's salt length (default 8). */
  saltedMd5Length: number;
}

export const DEFAULT_SETTINGS: AuthMeSettings = { bcryptCost: 12, pbkdf2Rounds: 10_000, saltedMd5Length: 8 };

/**
 * Rows asking for more work than this are refused as broken: a planted row must not hold a core
 * for minutes. Each limit is far above what AuthMe writes (bcrypt 10–12, PBKDF2 10000–120000,
 * Argon2 64 MiB × 2 passes, phpass 2^13 rounds).
 */
export const LIMITS = {
  bcryptCost: 16,
  pbkdf2Iterations: 2_000_000,
  argon2MemoryKib: 262_144,
  argon2Passes: 8,
  argon2Lanes: 16,
  phpassLog2: 18,
} as const;

import { perDatabase, sharedSecret } from '../../lib/shared-secrets.ts';
import { TokenSigner, UnsignedGrace } from '../../lib/signed-tokens.ts';
import type { GameTokenKind } from './game-auth.tables.ts';
import { unsignedTokensUntil } from './game-tokens.repo.ts';

/** What the launchers' tokens were before they were signed: 16 random bytes in hex. */
const UNSIGNED_CHARS = 32;

/** A token's use: an access token of either protocol, or GravitLauncher's refresh token. */
export type GameSecretUse = GameTokenKind | 'gravit-refresh';
const USES: readonly GameSecretUse[] = ['yggdrasil', 'gravit', 'gravit-refresh'];

/**
 * The launchers' tokens (Yggdrasil access tokens, GravitLauncher's access and refresh tokens)
 * carry the site's signature, like site sessions (lib/signed-tokens.ts; key: shared_secrets
 * 'game_tokens'): 16 random bytes and an 8-byte HMAC of them for their use, 48 hex digits, still
 * safe in any launcher's command line and config file. A made-up token (a join, a validate, a
 * refresh, chat keys) is refused without a database read. Tokens from before signing (rows with
 * `signed = 0`) keep working until they can no longer be refreshed.
 */
export class GameTokenKeys {
  private constructor(
    private readonly signers: ReadonlyMap<GameSecretUse, TokenSigner>,
    private readonly grace: UnsignedGrace,
  ) {}

  static readonly load = perDatabase(async (db) => {
    const [key, grace] = await Promise.all([sharedSecret(db, 'game_tokens'), UnsignedGrace.start((now) => unsignedTokensUntil(db, now))]);
    const signers = new Map(
      USES.map((use) => [use, new TokenSigner(key, `game:${use}`, { randomBytes: 16, macBytes: 8, encoding: 'hex' })]),
    );
    return new GameTokenKeys(signers, grace);
  });

  issue(use: GameSecretUse): string {
    return this.signers.get(use)!.issue();
  }

  /** Whether a database lookup could find a live token of this use. */
  mayBeLive(use: GameSecretUse, token: string, now = Date.now()): Promise<boolean> | boolean {
    return this.grace.admits(token, UNSIGNED_CHARS, this.signers.get(use)!, now);
  }
}

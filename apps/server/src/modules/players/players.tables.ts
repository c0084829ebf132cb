/** What a player shows of themselves, and when they were last seen in game. */
export interface PlayerProfilesTable {
  user_id: number;
  /** 1: the public profile is hidden and the home page shows no name for their purchases. */
  hidden: number;
  last_seen_at: number | null;
}

/** A name a game server reported as playing, account or not (the monitor's sample, AzLink, a join). */
export interface GameNamesTable {
  name_lower: string;
  /** As the game spelt it last. */
  name: string;
  last_seen_at: number;
}

export interface PlayersTables {
  player_profiles: PlayerProfilesTable;
  game_names: GameNamesTable;
}

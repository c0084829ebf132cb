/** What a player shows of themselves, and when they were last seen in game. */
export interface PlayerProfilesTable {
  user_id: number;
  /** 1: the public profile is hidden and the home page shows no name for their purchases. */
  hidden: number;
  last_seen_at: number | null;
}

export interface PlayersTables {
  player_profiles: PlayerProfilesTable;
}

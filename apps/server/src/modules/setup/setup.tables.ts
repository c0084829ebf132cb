/** First-run setup: one row at most, id 1. */
export interface SetupStateTable {
  id: number;
  /** The one-time code printed in the log and written to DATA_DIR/setup-code. */
  code: string;
  created_at: number;
  /** When the owner was created through /setup; null while it waits. */
  done_at: number | null;
  owner_id: number | null;
}

export interface SetupTables {
  setup_state: SetupStateTable;
}

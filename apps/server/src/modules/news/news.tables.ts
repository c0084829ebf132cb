import type { Generated } from 'kysely';

/** Tables of the news feature; db/types.ts merges them into the Database type. */
export interface NewsTable {
  id: Generated<number>;
  title: string;
  /** Plain text; the web app shows it with its line breaks, never as HTML. */
  content: string;
  image_url: string | null;
  author_id: number | null;
  created_at: number;
  updated_at: number;
}

export interface NewsTables {
  news: NewsTable;
}

/** Tables of the pages feature; db/types.ts merges them into the Database type. */
export interface PagesTable {
  /** The page's address: /p/{slug}; rules and help have their own (contract BUILTIN_PAGES). */
  slug: string;
  title: string;
  /** Markdown as the owner wrote it; rendered on read (and cached), never stored as HTML. */
  body: string;
  /** 'none' | 'footer' | 'menu' */
  place: string;
  position: number;
  updated_at: number;
  updated_by: number | null;
}

export interface PagesTables {
  pages: PagesTable;
}

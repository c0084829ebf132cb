import type { HTMLAttributes, ReactNode } from 'react';
import './admin.css';

export interface Column<T> {
  /** The column's heading, and the label of the value on a phone's card. */
  header: string;
  cell: (row: T) => ReactNode;
  /**
   * main: the row's name, the card's title on a phone (no label); num: right-aligned figures;
   * clip: long text, cut; actions: buttons, the card's top right corner on a phone (heading
   * only for screen readers); media: an icon (no label on a phone).
   */
  kind?: 'main' | 'num' | 'clip' | 'actions' | 'media';
}

interface DataTableProps<T> {
  rows: readonly T[];
  columns: readonly Column<T>[];
  rowKey: (row: T) => string | number;
  /** The table's accessible name, or the id of the heading that names it. */
  label?: string;
  labelledBy?: string;
  rowProps?: (row: T) => HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string>;
}

const NO_LABEL = new Set(['main', 'actions', 'media']);

/**
 * An admin table: a real table on a wide screen; on a phone (≤ 860 px) each row becomes a card —
 * the main column as its title, the other values labelled with their column's heading, the
 * actions in the corner — so nothing scrolls sideways. The ARIA roles are spelled out because
 * some browsers drop a table's semantics once its display is changed.
 */
export function DataTable<T>({ rows, columns, rowKey, label, labelledBy, rowProps }: DataTableProps<T>) {
  return (
    <div className="data-table-wrap">
      <table className="data-table" role="table" aria-label={label} aria-labelledby={labelledBy}>
        <thead>
          <tr role="row">
            {columns.map((c) => (
              <th key={c.header} role="columnheader" scope="col" className={c.kind ? `cell-${c.kind}` : undefined}>
                {c.kind === 'actions' ? <span className="visually-hidden">{c.header}</span> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} role="row" {...rowProps?.(row)}>
              {columns.map((c) => (
                <td
                  key={c.header}
                  role="cell"
                  className={c.kind ? `cell-${c.kind}` : undefined}
                  data-label={c.kind && NO_LABEL.has(c.kind) ? undefined : c.header}
                >
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

import type { ReactNode } from 'react';
import { Dropdown } from '../Dropdown.tsx';

interface RowMenuProps {
  /** Accessible name of the '...' button, e.g. 'Действия с сервером «Лобби»'. */
  label: string;
  /** The record's details, as <dt>/<dd> pairs. */
  details: ReactNode;
  onEdit: () => void;
  onDelete: () => void;
  busy?: boolean;
}

/** A row's '...' menu (spec §2): the record's details, «Изменить» and «Удалить»; it closes before either acts. */
export function RowMenu({ label, details, onEdit, onDelete, busy }: RowMenuProps) {
  return (
    <Dropdown label={label}>
      {(close) => (
        <>
          <dl>{details}</dl>
          <button
            type="button"
            onClick={() => {
              close();
              onEdit();
            }}
          >
            Изменить
          </button>
          <button
            type="button"
            className="admin-danger-item"
            disabled={busy}
            onClick={() => {
              close();
              onDelete();
            }}
          >
            Удалить
          </button>
        </>
      )}
    </Dropdown>
  );
}

interface RowActionsProps {
  /** What the buttons act on, for their accessible names: 'новость «Открытие»' → «Изменить новость «Открытие»». */
  what: string;
  onEdit: () => void;
  onDelete: () => void;
  busy?: boolean;
}

/** A row's «Изменить» and «Удалить» buttons, named for screen readers after the record. */
export function RowActions({ what, onEdit, onDelete, busy }: RowActionsProps) {
  return (
    <div className="admin-actions">
      <button type="button" className="btn btn-small" aria-label={`Изменить ${what}`} onClick={onEdit}>
        Изменить
      </button>
      <button type="button" className="btn btn-small btn-danger" aria-label={`Удалить ${what}`} disabled={busy} onClick={onDelete}>
        Удалить
      </button>
    </div>
  );
}

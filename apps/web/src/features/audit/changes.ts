import {
  AUDIT_HIDDEN_FIELDS,
  AUDIT_VALUE_TEXT,
  auditField,
  DELIVERY_STATE_TEXT,
  VAT_CODE_TEXT,
  PERMISSION_LABELS,
  type Permission,
  type AuditEntry,
  type AuditValueKind,
  type DeliveryState,
} from '@kubik/contract';
import { formatDateTime, formatNumber, formatRub } from '../../lib/format.ts';

export interface Change {
  key: string;
  label: string;
  before: string | null;
  after: string | null;
}

const asRecord = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
/** PostgreSQL hands big integers over as strings. */
const asNumber = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);

function parseList(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One value as the audit log shows it: «1 000 ₽», «да», «21.11.2026, 14:05», «Старт, Премиум». */
export function showValue(kind: AuditValueKind = 'text', value: unknown): string {
  if (kind === 'secret')
    return value === null || value === undefined || value === '' ? 'не задан' : value === '***' ? 'задан' : String(value);
  if (value === null || value === undefined || value === '') return '—';
  const n = asNumber(value);
  switch (kind) {
    case 'roubles':
      return Number.isFinite(n) ? formatRub(n) : String(value);
    case 'kopecks':
      return Number.isFinite(n) ? formatRub(n / 100) : String(value);
    case 'number':
      return Number.isFinite(n) ? formatNumber(n) : String(value);
    case 'boolean':
      return value === true || value === 1 || value === '1' ? 'да' : 'нет';
    case 'datetime':
      return formatDateTime(Number.isFinite(n) ? n : String(value));
    case 'vat_code':
      return (Number.isFinite(n) ? VAT_CODE_TEXT[n] : undefined) ?? String(value);
    case 'delivery_state':
      return DELIVERY_STATE_TEXT[value as DeliveryState] ?? String(value);
    case 'percent':
      return Number.isFinite(n) ? `${formatNumber(n)} %` : String(value);
    case 'list': {
      // A list as the API has it, or as a row keeps it (JSON text: an item's commands, a code's items).
      const list = typeof value === 'string' && value.startsWith('[') ? parseList(value) : value;
      if (!Array.isArray(list)) return String(value);
      if (list.length === 0) return 'нет';
      return list
        .map((item) =>
          typeof item === 'string'
            ? (PERMISSION_LABELS[item as Permission]?.label ?? item)
            : typeof item === 'number'
              ? String(item)
              : String(asRecord(item).name ?? asRecord(item).title ?? '…'),
        )
        .join(', ');
    }
    case 'roubles_list':
      return Array.isArray(value) ? (value.length === 0 ? 'нет' : value.map((v) => formatRub(asNumber(v))).join(', ')) : String(value);
    case 'periods': {
      if (!Array.isArray(value)) return String(value);
      return value
        .map((p) => {
          const r = asRecord(p);
          const off = asNumber(r.discount);
          return `${formatNumber(asNumber(r.months))} мес.${off > 0 ? ` (−${formatNumber(off)} %)` : ''}`;
        })
        .join(', ');
    }
    case 'bonus_rules': {
      if (!Array.isArray(value)) return String(value);
      if (value.length === 0) return 'нет';
      return value.map((r) => `от ${formatRub(asNumber(asRecord(r).from))} — +${formatNumber(asNumber(asRecord(r).percent))} %`).join('; ');
    }
    default: {
      const named = AUDIT_VALUE_TEXT[kind]?.[String(value)];
      if (named) return named;
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
    }
  }
}

/** The fields that differ between before and after, in Russian; a creation or deletion lists the whole record. */
export function changesOf(entry: AuditEntry): Change[] {
  const before = asRecord(entry.before);
  const after = asRecord(entry.after);
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !AUDIT_HIDDEN_FIELDS.includes(k));
  return keys
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) => {
      const { label, kind } = auditField(entry.entity, k, { ...before, ...after });
      return {
        key: k,
        label,
        before: entry.before === null ? null : showValue(kind, before[k]),
        after: entry.after === null ? null : showValue(kind, after[k]),
      };
    });
}

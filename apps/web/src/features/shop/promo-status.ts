import type { PromoCodeAdmin } from '@kubik/contract';
import type { BadgeTone } from '../../components/Badge.tsx';

/** A code as it stands now, by its switch, its dates and its uses (a date in the past is no longer «Действует»). */
export function promoStatus(
  p: Pick<PromoCodeAdmin, 'disabled' | 'starts_at' | 'ends_at' | 'uses' | 'max_uses'>,
  now: number,
): { text: string; tone: BadgeTone } {
  if (p.disabled) return { text: 'Выключен', tone: 'neutral' };
  if (p.ends_at !== null && p.ends_at <= now) return { text: 'Истёк', tone: 'danger' };
  if (p.starts_at !== null && p.starts_at > now) return { text: 'Ещё не начался', tone: 'warning' };
  if (p.max_uses !== null && p.uses >= p.max_uses) return { text: 'Использован полностью', tone: 'neutral' };
  return { text: 'Действует', tone: 'success' };
}

import type { ReferralResponse } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { CopyText } from '../../components/CopyText.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatDate, formatNumber, formatRub, plural } from '../../lib/format.ts';
import { fetchReferral, REFERRAL_KEY } from './api.ts';

function rulesText(r: ReferralResponse['rules']): string | null {
  const parts: string[] = [];
  if (r.share_percent > 0)
    parts.push(
      `${formatNumber(r.share_percent)} % от пополнений друга в первые ${r.share_days} ${plural(r.share_days, ['день', 'дня', 'дней'])}`,
    );
  if (r.bonus_amount > 0)
    parts.push(
      `${formatRub(r.bonus_amount)} после его первого пополнения${r.bonus_min_topup > 0 ? ` от ${formatRub(r.bonus_min_topup)}` : ''}`,
    );
  if (parts.length === 0) return null;
  const hold = r.hold_days > 0 ? ` Награда поступает на баланс через ${r.hold_days} ${plural(r.hold_days, ['день', 'дня', 'дней'])}.` : '';
  return `Вы получаете ${parts.join(' и ')}.${hold}`;
}

/** «Пригласить друга» in the profile: the link, who joined through it and what each earned. */
export function ReferralPanel() {
  const query = useQuery({ queryKey: REFERRAL_KEY, queryFn: fetchReferral });
  return (
    <section className="stack" aria-labelledby="referral-heading">
      <h2 id="referral-heading">Пригласить друга</h2>
      <QueryState query={query} error="Не удалось загрузить реферальную ссылку" isEmpty={() => false}>
        {(data) => (
          <>
            <p className="muted">{rulesText(data.rules) ?? 'Поделитесь ссылкой: друг зарегистрируется по ней.'}</p>
            <CopyText text={data.link} label="Ваша реферальная ссылка" testId="referral-link" />
            {data.invited.length === 0 ? (
              <p className="muted">По вашей ссылке пока никто не зарегистрировался.</p>
            ) : (
              <>
                <p>
                  Приглашено: {data.invited.length}, заработано: <strong>{formatRub(data.earned)}</strong>
                </p>
                <ul className="referral-list" data-testid="referral-invited">
                  {data.invited.map((i) => (
                    <li key={i.username}>
                      {i.username} — с {formatDate(i.joined_at)}, принёс {formatRub(i.earned)}
                    </li>
                  ))}
                </ul>
              </>
            )}
            {data.held.length > 0 && (
              <>
                <p>
                  Ждут зачисления: <strong>{formatRub(data.held.reduce((sum, h) => sum + h.amount, 0))}</strong>. Награда поступает на
                  баланс в указанный день, если платёж друга не вернут.
                </p>
                <ul className="referral-list" data-testid="referral-held">
                  {data.held.map((h, n) => (
                    <li key={`${h.username}-${h.kind}-${h.release_at}-${n}`}>
                      {formatRub(h.amount)} за {h.username} ({h.kind === 'bonus' ? 'бонус' : 'доля'}) — {formatDate(h.release_at)}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </>
        )}
      </QueryState>
    </section>
  );
}

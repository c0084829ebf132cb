import type { DonateFeature, DonateKit, DonateTier, UserPrivilege } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import { Badge } from '../../components/Badge.tsx';
import { GuestOrderReturn } from '../../components/GuestOrderReturn.tsx';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useSite } from '../../providers/site.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { plural } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { DONATE_KEY, fetchTiers, formatPrice } from './api.ts';
import { tierNow } from './tierNow.ts';
import { fetchMyPrivileges, MY_PRIVILEGES_KEY } from './privileges-api.ts';
import { CommunityGoal } from './Community.tsx';
import { SubscribeBox } from './Subscriptions.tsx';
import './donate.css';

/** «Можно получать раз в день», «… раз в 3 дня», «… раз в 7 дней». */
export function kitPeriod(days: number): string {
  return days === 1 ? 'Можно получать раз в день' : `Можно получать раз в ${days} ${plural(days, ['день', 'дня', 'дней'])}`;
}

// The purchase form (with the form kit and zod) is a chunk of its own: a guest never needs it, and
// a player's page does not wait for it. It is asked for when «Купить» is pointed at or focused.
const loadPurchase = () => import('./TierPurchase.tsx');
const TierPurchase = lazy(() => loadPurchase().then((m) => ({ default: m.TierPurchase })));
// The guest's form for a nickname: a chunk of its own too, asked for when its button is pointed at.
const loadGuest = () => import('./GuestTierBuy.tsx');
const GuestTierBuy = lazy(() => loadGuest().then((m) => ({ default: m.GuestTierBuy })));

export default function DonatePage() {
  useTitle('Донат');
  const tiers = useQuery({ queryKey: DONATE_KEY, queryFn: fetchTiers });
  const [selected, setSelected] = useState<string | null>(null);

  return (
    <div className="stack donate">
      <header className="page-head">
        <h1>Донат</h1>
        <p>Поддержите сервер и получите привилегии и наборы предметов в игре.</p>
      </header>
      <GuestOrderReturn />
      {tiers.isPending ? (
        <Loading text="Загрузка привилегий..." />
      ) : tiers.isError ? (
        <Empty>
          <p>Не удалось загрузить привилегии.</p>
          <button type="button" className="btn btn-small" onClick={() => void tiers.refetch()}>
            Повторить
          </button>
        </Empty>
      ) : tiers.data.length === 0 ? (
        <Empty>Нет доступных донатов</Empty>
      ) : (
        <>
          <TierTabs tiers={tiers.data} selected={selected} onSelect={setSelected} />
          {tiers.data.length > 1 && <TierComparison tiers={tiers.data} />}
        </>
      )}
      <CommunityGoal />
    </div>
  );
}

/**
 * Every tier side by side: its price, each feature any tier has (its value, a check, or a dash
 * where the tier has none) and its kits. On a phone the table scrolls sideways inside its frame
 * (the tiers' names stay in view), never the page.
 */
function TierComparison({ tiers }: { tiers: DonateTier[] }) {
  const now = Date.now();
  const titles = [...new Set(tiers.flatMap((t) => t.features.map((f) => f.title.trim())))].filter(Boolean);
  const cell = (tier: DonateTier, title: string) => {
    const feature = tier.features.find((f) => f.title.trim() === title);
    if (!feature) return <span aria-label="нет">—</span>;
    if (feature.value) return feature.value;
    return (
      <span className="compare-check" aria-label="есть">
        ✓
      </span>
    );
  };
  return (
    <section className="card stack" aria-labelledby="compare-h" data-testid="tier-comparison">
      <h2 id="compare-h">Сравнение привилегий</h2>
      {/* Focusable, so the keyboard can scroll it on a narrow screen. */}
      <div className="compare-wrap" tabIndex={0} role="region" aria-labelledby="compare-h">
        <table className="compare-table">
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">Что даёт</span>
              </th>
              {tiers.map((t) => (
                <th key={t.id} scope="col">
                  {t.title}
                  {t.is_best && (
                    <>
                      {' '}
                      <Badge tone="gold">Лучший выбор</Badge>
                    </>
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">Цена в месяц</th>
              {tiers.map((t) => (
                <td key={t.id} className="compare-price">
                  {formatPrice(tierNow(t, now).amount, t.currency)}
                </td>
              ))}
            </tr>
            {titles.map((title) => (
              <tr key={title}>
                <th scope="row">{title}</th>
                {tiers.map((t) => (
                  <td key={t.id}>{cell(t, title)}</td>
                ))}
              </tr>
            ))}
            {tiers.some((t) => t.kits.length > 0) && (
              <tr>
                <th scope="row">Киты</th>
                {tiers.map((t) => (
                  <td key={t.id}>{t.kits.length > 0 ? t.kits.map((k) => k.name).join(', ') : <span aria-label="нет">—</span>}</td>
                ))}
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function TierTabs({ tiers, selected, onSelect }: { tiers: DonateTier[]; selected: string | null; onSelect: (id: string) => void }) {
  // A tier that was deleted meanwhile falls back to the first one.
  const current = tiers.find((t) => String(t.id) === selected) ?? tiers[0]!;
  const { user, setBalance } = useAuth();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const mine = useQuery({ queryKey: MY_PRIVILEGES_KEY, queryFn: fetchMyPrivileges, enabled: !!user });
  const running = (user && mine.data?.find((p) => p.active)) || null;
  const [buying, setBuying] = useState<DonateTier | null>(null);
  // Mounted from the first «Купить» on, so that closing it is the modal's own close.
  const [asked, setAsked] = useState(false);
  return (
    <>
      <Tabs
        label="Привилегии"
        active={String(current.id)}
        onChange={onSelect}
        tabs={tiers.map((t) => ({
          id: String(t.id),
          label: (
            <span className="tier-tab">
              {t.image_url && <img src={t.image_url} alt="" width={40} height={40} className="tier-tab-image pixelated" />}
              <span className="tier-tab-text">
                <span className="tier-tab-title">{t.title}</span>
                <span className="tier-tab-price">{formatPrice(tierNow(t, Date.now()).amount, t.currency)}</span>
              </span>
              {t.is_best && <Badge tone="gold">Лучший выбор</Badge>}
            </span>
          ),
        }))}
      >
        <TierDetails
          tier={current}
          buy={
            <>
              <BuyButton
                tier={current}
                loggedIn={!!user}
                running={running}
                onBuy={() => {
                  setAsked(true);
                  setBuying(current);
                }}
              />
              {user && <SubscribeBox tier={current} />}
            </>
          }
        />
      </Tabs>
      {asked && (
        <Suspense fallback={null}>
          <TierPurchase
            tier={buying}
            running={running}
            balance={user?.balance ?? 0}
            onClose={() => setBuying(null)}
            onBought={(balance, message) => {
              setBuying(null);
              setBalance(balance);
              notify('success', message);
              void queryClient.invalidateQueries({ queryKey: MY_PRIVILEGES_KEY });
            }}
          />
        </Suspense>
      )}
    </>
  );
}

/**
 * «Купить» («Продлить» for the running tier); guests are sent to log in or, when the owner allows
 * it, buy for a nickname; tiers not in roubles are not sold here.
 */
function BuyButton({
  tier,
  loggedIn,
  running,
  onBuy,
}: {
  tier: DonateTier;
  loggedIn: boolean;
  running: UserPrivilege | null;
  onBuy: () => void;
}) {
  const site = useSite();
  const [forPlayer, setForPlayer] = useState<number | null>(null);
  if (!tier.sellable) return <p className="muted">Эта привилегия не продаётся на сайте.</p>;
  const held = running?.tier_id === tier.id;
  const guestOpen = forPlayer === tier.id;
  return (
    <div className="tier-buy">
      {held && running && <p className="tier-held">У вас действует до {formatDate(running.expires_at)}</p>}
      {loggedIn ? (
        <button
          type="button"
          className="btn btn-primary"
          onClick={onBuy}
          onPointerEnter={() => void loadPurchase().catch(() => {})}
          onFocus={() => void loadPurchase().catch(() => {})}
        >
          {held ? 'Продлить' : 'Купить'}
        </button>
      ) : (
        <>
          <Link to="/login" state={{ from: '/donate' }} className="btn btn-primary">
            Войдите, чтобы купить
          </Link>
          {site.guest_purchases && (
            <>
              <button
                type="button"
                className="btn"
                aria-expanded={guestOpen}
                aria-controls={`guest-tier-${tier.id}`}
                onClick={() => setForPlayer(guestOpen ? null : tier.id)}
                onPointerEnter={() => void loadGuest().catch(() => {})}
                onFocus={() => void loadGuest().catch(() => {})}
              >
                Купить для игрока
              </button>
              <div id={`guest-tier-${tier.id}`} hidden={!guestOpen}>
                {guestOpen && (
                  <Suspense fallback={<Loading text="Загрузка формы..." />}>
                    <GuestTierBuy tier={tier} />
                  </Suspense>
                )}
              </div>
            </>
          )}
        </>
      )}
    </div>
  );
}

function TierDetails({ tier, buy }: { tier: DonateTier; buy: ReactNode }) {
  return (
    <article className="tier card" data-testid="tier-details">
      <header className="tier-head">
        {tier.image_url && <img src={tier.image_url} alt="" width={96} height={96} className="tier-image pixelated" />}
        <div className="stack tier-head-text">
          <div className="row">
            <h2 className="tier-title">{tier.title}</h2>
            {tier.is_best && <Badge tone="gold">Лучший выбор</Badge>}
          </div>
          <TierPrice tier={tier} />
        </div>
        {buy}
      </header>
      <p className="preline tier-content">{tier.content}</p>

      {tier.kits.length > 0 && (
        <section className="stack" aria-label="Киты">
          <h3>Киты</h3>
          <ul className="kit-grid">
            {tier.kits.map((kit) => (
              <KitCard key={kit.id} kit={kit} />
            ))}
          </ul>
        </section>
      )}

      {tier.features.length > 0 && (
        <section className="stack" aria-label="Возможности">
          <h3>Возможности</h3>
          <ul className="feature-list">
            {tier.features.map((feature, i) => (
              <FeatureRow key={i} feature={feature} />
            ))}
          </ul>
        </section>
      )}
    </article>
  );
}

function KitCard({ kit }: { kit: DonateKit }) {
  return (
    <li className="kit">
      {kit.kitImg && <img src={kit.kitImg} alt="" width={64} height={64} className="kit-image pixelated" loading="lazy" />}
      <div className="kit-body">
        <h4 className="kit-name">{kit.name}</h4>
        {kit.description && <p className="preline kit-description">{kit.description}</p>}
        {kit.command && <code className="kit-command">{kit.command}</code>}
        <p className="kit-period">{kitPeriod(kit.period)}</p>
      </div>
    </li>
  );
}

function FeatureRow({ feature }: { feature: DonateFeature }) {
  return (
    <li className="feature">
      <span className={`feature-check${feature.check ? ' on' : ''}`} aria-hidden="true">
        {feature.check ? '✓' : ''}
      </span>
      <div className="feature-body">
        <p className="feature-title">
          {feature.title}
          {feature.check && <span className="visually-hidden"> — есть</span>}
          {feature.value && <span className="feature-value">{feature.value}</span>}
        </p>
        {feature.description && <p className="preline feature-description">{feature.description}</p>}
      </div>
    </li>
  );
}

/** The price per month; during a sale the old one struck through and when the sale ends. */
function TierPrice({ tier }: { tier: DonateTier }) {
  const now = Date.now();
  const { amount, old } = tierNow(tier, now);
  return (
    <p className="tier-price">
      {old !== null && <s className="tier-old-price">{formatPrice(old, tier.currency)}</s>} {formatPrice(amount, tier.currency)}
      {old !== null && tier.sale_ends_at !== null && <span className="tier-sale"> Акция до {formatDateTime(tier.sale_ends_at)}</span>}
    </p>
  );
}

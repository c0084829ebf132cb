import type { DonateFeature, DonateKit, DonateTier } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Badge } from '../../components/Badge.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { plural } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { DONATE_KEY, fetchTiers, formatPrice } from './api.ts';
import './donate.css';

/** «Можно получать раз в день», «… раз в 3 дня», «… раз в 7 дней». */
export function kitPeriod(days: number): string {
  return days === 1 ? 'Можно получать раз в день' : `Можно получать раз в ${days} ${plural(days, ['день', 'дня', 'дней'])}`;
}

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
      {tiers.isPending ? (
        <Loading text="Загрузка донатов..." />
      ) : tiers.isError ? (
        <Empty>
          <p>Не удалось загрузить донаты.</p>
          <button type="button" className="btn btn-small" onClick={() => void tiers.refetch()}>
            Повторить
          </button>
        </Empty>
      ) : tiers.data.length === 0 ? (
        <Empty>Нет доступных донатов</Empty>
      ) : (
        <TierTabs tiers={tiers.data} selected={selected} onSelect={setSelected} />
      )}
    </div>
  );
}

function TierTabs({ tiers, selected, onSelect }: { tiers: DonateTier[]; selected: string | null; onSelect: (id: string) => void }) {
  // A tier that was deleted meanwhile falls back to the first one.
  const current = tiers.find((t) => String(t.id) === selected) ?? tiers[0]!;
  return (
    <Tabs
      label="Донаты"
      active={String(current.id)}
      onChange={onSelect}
      tabs={tiers.map((t) => ({
        id: String(t.id),
        label: (
          <span className="tier-tab">
            {t.image_url && <img src={t.image_url} alt="" width={40} height={40} className="tier-tab-image pixelated" />}
            <span className="tier-tab-text">
              <span className="tier-tab-title">{t.title}</span>
              <span className="tier-tab-price">{formatPrice(t.amount, t.currency)}</span>
            </span>
            {t.is_best && <Badge tone="gold">Лучший выбор</Badge>}
          </span>
        ),
      }))}
    >
      <TierDetails tier={current} />
    </Tabs>
  );
}

function TierDetails({ tier }: { tier: DonateTier }) {
  return (
    <article className="tier card" data-testid="tier-details">
      <header className="tier-head">
        {tier.image_url && <img src={tier.image_url} alt="" width={96} height={96} className="tier-image pixelated" />}
        <div className="stack tier-head-text">
          <div className="row">
            <h2 className="tier-title">{tier.title}</h2>
            {tier.is_best && <Badge tone="gold">Лучший выбор</Badge>}
          </div>
          <p className="tier-price">{formatPrice(tier.amount, tier.currency)}</p>
        </div>
      </header>
      <p className="preline tier-content">{tier.content}</p>

      {tier.kits.length > 0 && (
        <section className="stack" aria-label="Киты">
          <h3>Киты</h3>
          <ul className="kit-grid">
            {tier.kits.map((kit, i) => (
              <KitCard key={i} kit={kit} />
            ))}
          </ul>
        </section>
      )}

      {tier.features.length > 0 && (
        <section className="stack" aria-label="Привилегии">
          <h3>Привилегии</h3>
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

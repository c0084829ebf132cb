import type { MeResponse } from '@kubik/contract';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'wouter';
import { useAuth } from '../../providers/auth.tsx';
import { Avatar } from '../Avatar.tsx';
import { Loading } from '../../components/States.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { formatRub } from '../../lib/format.ts';
import { TOPUP_PATH } from '../../lib/paths.ts';
import { useTitle } from '../../providers/title.ts';
import { MyPurchases } from '../../features/shop/MyPurchases.tsx';
import { ShopPanel } from '../../features/shop/ShopPanel.tsx';
import { ChangePasswordForm } from '../../features/accounts/ChangePasswordForm.tsx';
import { DeleteAccountSection } from '../../features/accounts/DeleteAccountSection.tsx';
import { EmailChangeForm } from '../../features/accounts/EmailChangeForm.tsx';
import { MyPrivileges } from '../../features/donate/MyPrivileges.tsx';
import { MySubscriptions } from '../../features/donate/Subscriptions.tsx';
import { SessionsPanel } from '../../features/security/SessionsPanel.tsx';
import { TwoFactorPanel } from '../../features/security/TwoFactorPanel.tsx';
import { OwnSkinPanel } from '../../features/skins/SkinPanel.tsx';
import { PrivacyPanel } from '../../features/players/PrivacyPanel.tsx';
import { MyPayments } from '../../features/payments/MyPayments.tsx';
import { MyHistory } from '../../features/history/MyHistory.tsx';
import { PaymentReturn } from '../../features/payments/PaymentReturn.tsx';
import { SocialLinksPanel } from '../../features/social/SocialLinksPanel.tsx';
import { ReferralPanel } from '../../features/referrals/ReferralPanel.tsx';
import './profile.css';

const TABS = [
  { id: 'info', label: 'Информация' },
  { id: 'shop', label: 'Магазин' },
  { id: 'history', label: 'История' },
  { id: 'settings', label: 'Настройки' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/** The personal cabinet: the player's skin (skins), their facts, privileges (donate), payments (payments), the shop (shop), the history (history), the password form (accounts), two-factor login and sessions (security). */
export default function ProfilePage() {
  useTitle('Личный кабинет');
  const { user, refresh } = useAuth();
  const [params, setParams] = useSearchParams();
  const tab: TabId = TABS.find((t) => t.id === params.get('tab'))?.id ?? 'info';
  // The payment provider sends the player back here with ?payment=<id>.
  const paymentId = params.get('payment');
  const setParam = (name: string, value: string | null) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (value === null) next.delete(name);
        else next.set(name, value);
        return next;
      },
      { replace: true },
    );

  // The balance in the header may be stale (a purchase in another tab, an admin's top-up).
  useEffect(() => refresh(), [refresh]);

  if (!user) return <Loading />;
  return (
    <div className="stack">
      <header className="page-head">
        <h1>Личный кабинет</h1>
      </header>
      {paymentId && <PaymentReturn id={paymentId} onClose={() => setParam('payment', null)} />}
      <div className="profile-layout">
        <OwnSkinPanel username={user.username} />
        <section className="card profile-main" aria-label="Разделы личного кабинета">
          <Tabs
            tabs={[...TABS]}
            active={tab}
            label="Разделы личного кабинета"
            onChange={(id) => setParam('tab', id === 'info' ? null : id)}
          >
            {tab === 'info' && (
              <div className="stack">
                <Information user={user} />
                <MyPrivileges />
                <MySubscriptions />
                <MyPayments />
                <p>
                  <Link to="/vote">Голосуйте за сервер в рейтингах и получайте награды</Link>
                </p>
                <ReferralPanel />
              </div>
            )}
            {tab === 'shop' && (
              <div className="stack">
                <ShopPanel />
                <MyPurchases inCard />
              </div>
            )}
            {tab === 'history' && <MyHistory />}
            {tab === 'settings' && (
              <div className="settings-sections">
                <ChangePasswordForm />
                <EmailChangeForm />
                <TwoFactorPanel />
                <SocialLinksPanel />
                <SessionsPanel />
                <PrivacyPanel username={user.username} />
                <DeleteAccountSection />
              </div>
            )}
          </Tabs>
        </section>
      </div>
    </div>
  );
}

function Information({ user }: { user: MeResponse }) {
  return (
    <div className="profile-info">
      <Avatar username={user.username} size={96} />
      <dl className="profile-facts">
        <dt>Имя игрока</dt>
        <dd data-testid="profile-username">{user.username}</dd>
        <dt>Роль</dt>
        <dd>{user.is_admin ? 'Администратор' : user.role ? `Сотрудник (${user.role})` : 'Пользователь'}</dd>
        <dt>Баланс</dt>
        <dd className="profile-balance-row">
          <span className="profile-balance-value" data-testid="profile-balance">
            {formatRub(user.balance)}
          </span>
          <Link to={TOPUP_PATH} className="btn btn-small btn-primary">
            Пополнить баланс
          </Link>
        </dd>
      </dl>
    </div>
  );
}

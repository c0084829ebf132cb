import { GameLoginSection, LauncherSection, StartSection, SupportSection, WelcomeSection } from '../../features/help/HelpSections.tsx';
import { PageContent } from '../../features/pages/PageContent.tsx';
import { useAuth } from '../../providers/auth.tsx';
import { useSite } from '../../providers/site.tsx';
import { useTitle } from '../../providers/title.ts';

/**
 * /help, for a player: how to start playing (four steps), the launcher (Лаунчер), logging in
 * from it, then for guests the FAQ page and for players a welcome, the owner's help page
 * (Админ-панель → Страницы) and the support links. What an owner sets on the game servers is in
 * the admin area (Вход в игру), not here.
 */
export default function HelpPage() {
  useTitle('Помощь');
  const site = useSite();
  const { user } = useAuth();
  return (
    <div className="stack help">
      <header className="page-head">
        <h1>Помощь</h1>
        <p>Как начать играть на {site.name}, что нужно компьютеру и куда писать, если что-то пошло не так.</p>
      </header>
      <StartSection username={user?.username ?? null} />
      <LauncherSection />
      <GameLoginSection />
      {user ? (
        <WelcomeSection username={user.username} />
      ) : (
        <PageContent slug="faq">
          {(title, body) => (
            <section className="card" aria-labelledby="faq-h" data-testid="faq">
              <h2 id="faq-h">{title}</h2>
              {body}
            </section>
          )}
        </PageContent>
      )}
      <PageContent slug="help">
        {(_title, body) => (
          <section className="card" data-testid="help-page">
            {body}
          </section>
        )}
      </PageContent>
      <SupportSection />
    </div>
  );
}

import { MarkdownPage } from './MarkdownPage.tsx';

/** /rules: the owner's rules page (Админ-панель → Страницы). */
export default function RulesPage() {
  return <MarkdownPage slug="rules" fallbackTitle="Правила" />;
}

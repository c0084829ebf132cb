import { useParams } from 'wouter';
import { MarkdownPage } from './MarkdownPage.tsx';

/** /p/{slug}: оферта, privacy, contacts and the owner's own pages. */
export default function CustomPage() {
  const { slug = '' } = useParams<{ slug: string }>();
  return <MarkdownPage key={slug} slug={slug.toLowerCase()} fallbackTitle="Страница" />;
}

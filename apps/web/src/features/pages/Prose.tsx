import type { MouseEvent } from 'react';
import { useLocation } from 'wouter';
import './pages.css';

/**
 * A page's body as the server rendered it from Markdown (no raw HTML, safe links only:
 * contract/markdown.ts). Links within the site move through the router instead of reloading.
 */
export function Prose({ html, className = '' }: { html: string; className?: string }) {
  const [, navigate] = useLocation();
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const link = (e.target as HTMLElement).closest('a');
    const href = link?.getAttribute('href');
    if (!link || !href || link.target || !href.startsWith('/') || href.startsWith('//')) return;
    e.preventDefault();
    navigate(href);
  };
  // The links inside are the controls (Enter on a link clicks it too); the box only catches their clicks.
  return <div className={`prose ${className}`} onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />;
}

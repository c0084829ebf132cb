// The one Markdown renderer of the site's pages, shared by the server (which renders what it
// serves) and the admin editor's preview (loaded with the editor only: '@kubik/contract/markdown'),
// so the preview is exactly what visitors get.
//
// Safety: markdown-it with html:false escapes every raw HTML tag the text holds (<script>,
// <img onerror>, <iframe>); links and images keep only http(s), mailto:, tel: and addresses
// without a scheme (on this site), so javascript:, vbscript:, data: and file: become plain
// text; every link gets rel="noopener noreferrer", links off the site open in a new tab.
import markdownIt, { type MarkdownIt, type RendererRule } from 'markdown-it';

/** Addresses a page may link to or show: http(s), mailto, tel, or no scheme at all (/rules, #top, faq). */
export function isSafePageUrl(url: string): boolean {
  const u = url.trim();
  // No control characters or spaces a browser would strip before reading the scheme (java\tscript:).
  if (/[\p{Cc}\s\\]/u.test(u)) return false;
  if (/^(https?:|mailto:|tel:)/i.test(u)) return true;
  // Anything else with a scheme is refused: a colon before the first /, ? or #.
  return !/^[^/?#]*:/.test(u);
}

const isExternal = (href: string) => /^(https?:)?\/\//i.test(href);

interface RenderEnv {
  /** FAQ pages: each second-level heading is a question that opens its answer (<details>). */
  faq?: boolean;
  openDetails?: boolean;
  [key: string | symbol]: unknown;
}

function create(): MarkdownIt {
  const md = markdownIt({ html: false, linkify: true, breaks: true, typographer: false });
  md.validateLink = isSafePageUrl;

  const linkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    token.attrSet('rel', 'noopener noreferrer');
    if (isExternal(String(token.attrGet('href') ?? ''))) token.attrSet('target', '_blank');
    return linkOpen(tokens, idx, options, env, self);
  };

  const image = md.renderer.rules.image!;
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    token.attrSet('loading', 'lazy');
    token.attrSet('decoding', 'async');
    token.attrSet('referrerpolicy', 'no-referrer');
    return image(tokens, idx, options, env, self);
  };

  // FAQ: «## Вопрос» + text → <details><summary>Вопрос</summary>text</details>. The tags are
  // written here, not taken from the text, so html:false still holds for everything the owner typed.
  const headingOpen = md.renderer.rules.heading_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  const headingClose = md.renderer.rules.heading_close ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  const faqOpen: RendererRule = (tokens, idx, options, env: RenderEnv = {}, self) => {
    const tag = tokens[idx]!.tag;
    if (!env.faq || (tag !== 'h1' && tag !== 'h2')) return headingOpen(tokens, idx, options, env, self);
    const close = env.openDetails ? '</div></details>\n' : '';
    if (tag === 'h1') {
      env.openDetails = false;
      return close + headingOpen(tokens, idx, options, env, self);
    }
    env.openDetails = true;
    return `${close}<details class="faq-item"><summary>`;
  };
  md.renderer.rules.heading_open = faqOpen;
  md.renderer.rules.heading_close = (tokens, idx, options, env: RenderEnv = {}, self) =>
    env.faq && tokens[idx]!.tag === 'h2' ? '</summary><div class="faq-answer">\n' : headingClose(tokens, idx, options, env, self);
  return md;
}

let instance: MarkdownIt | undefined;

/** The page's Markdown as safe HTML. `faq` turns each «## …» section into an expandable entry. */
export function renderMarkdown(source: string, options: { faq?: boolean } = {}): string {
  instance ??= create();
  const env: RenderEnv = { faq: options.faq };
  const html = instance.render(source, env);
  return env.openDetails ? `${html}</div></details>\n` : html;
}

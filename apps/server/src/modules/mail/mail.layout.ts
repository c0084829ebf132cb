const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The site's letter: its name, a title, paragraphs, one action button with the link spelled out below, a footer. */
export function layout(
  siteName: string,
  title: string,
  paragraphs: string[],
  button: { text: string; href: string },
  footer: string,
): string {
  const body = paragraphs.map((p) => `<p style="margin:0 0 16px;line-height:1.5">${esc(p)}</p>`).join('');
  return `<!doctype html><html lang="ru"><head><meta charset="utf-8"><title>${esc(title)}</title></head>
<body style="margin:0;background:#0f172a;font-family:Arial,sans-serif;color:#e2e8f0">
<div style="max-width:520px;margin:0 auto;padding:32px 24px">
<h1 style="font-size:22px;color:#4ade80;margin:0 0 24px">${esc(siteName)}</h1>
<h2 style="font-size:18px;margin:0 0 16px">${esc(title)}</h2>${body}
<p style="margin:24px 0"><a href="${esc(button.href)}" style="background:#22c55e;color:#052e16;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:bold">${esc(button.text)}</a></p>
<p style="font-size:13px;color:#94a3b8;line-height:1.5">Если кнопка не работает, откройте ссылку: <br><a href="${esc(button.href)}" style="color:#93c5fd;word-break:break-all">${esc(button.href)}</a></p>
<p style="font-size:13px;color:#94a3b8;line-height:1.5">${esc(footer)}</p>
</div></body></html>`;
}

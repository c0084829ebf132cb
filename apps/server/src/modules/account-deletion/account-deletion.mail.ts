import type { OutboxLetter } from '../mail/mail.outbox.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function goodbyeLetter(siteName: string, to: string, username: string, balanceText: string | null): OutboxLetter {
  const lines = [
    `Здравствуйте, ${username}!`,
    `Ваш аккаунт на сайте ${siteName} удалён по вашей просьбе. Имя, почта и пароль стёрты, все входы на сайт и в игру завершены; имя и почту можно снова использовать для регистрации.`,
    'История покупок, пополнений и операций по балансу сохраняется без ваших данных: её требует учёт платежей.',
    ...(balanceText ? [`Остаток на балансе (${balanceText}) вернуть на новый аккаунт нельзя.`] : []),
    'Если вы не удаляли аккаунт, напишите в поддержку сайта.',
  ];
  return {
    to,
    subject: `Аккаунт удалён — ${siteName}`,
    text: `${lines.join('\n\n')}\n`,
    html: `<!doctype html><html lang="ru"><head><meta charset="utf-8"><title>Аккаунт удалён</title></head>
<body style="margin:0;background:#0f172a;font-family:Arial,sans-serif;color:#e2e8f0"><div style="max-width:520px;margin:0 auto;padding:32px 24px">
<h1 style="font-size:22px;color:#4ade80;margin:0 0 24px">${esc(siteName)}</h1><h2 style="font-size:18px;margin:0 0 16px">Аккаунт удалён</h2>
${lines.map((l) => `<p style="margin:0 0 16px;line-height:1.5">${esc(l)}</p>`).join('')}</div></body></html>`,
  };
}

// The accent colour's CSS variables. No zod here: the web app's shell imports this file alone
// ('@kubik/contract/accent'), and the first page must not carry the contract's schemas.

export const ACCENT = /^#[0-9a-f]{6}$/i;

export const DEFAULT_ACCENT = '#4ade80';

/**
 * The accent colour's three CSS variables: the colour, a stronger shade for filled buttons and
 * the ink on them (dark on a light accent, white on a dark one), so any colour stays readable.
 */
export function accentPalette(hex: string): { accent: string; strong: string; ink: string } {
  const safe = ACCENT.test(hex) ? hex.toLowerCase() : DEFAULT_ACCENT;
  // The design's own shades for its own green.
  if (safe === DEFAULT_ACCENT) return { accent: DEFAULT_ACCENT, strong: '#22c55e', ink: '#052e16' };
  const rgb = [1, 3, 5].map((i) => parseInt(safe.slice(i, i + 2), 16));
  const lin = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * lin[0]! + 0.7152 * lin[1]! + 0.0722 * lin[2]!;
  const strong = `#${rgb
    .map((c) =>
      Math.round(c * 0.85)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
  return { accent: safe, strong, ink: luminance > 0.3 ? '#0b1120' : '#ffffff' };
}

/** `:root{…}` with the accent's variables; the colour is validated, so it is safe inside <style>. */
export function accentCss(hex: string): string {
  const p = accentPalette(hex);
  return `:root{--accent:${p.accent};--accent-strong:${p.strong};--accent-ink:${p.ink}}`;
}

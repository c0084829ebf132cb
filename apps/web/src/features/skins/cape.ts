/**
 * The site's own cape, drawn here so the project ships no third-party artwork: a 64×32 texture
 * in the standard cape layout (the 10×16 cape at (1,1) with its back at (12,1), the elytra wings
 * read from x 22–46). A night-blue cloth with a green border and a gold block.
 */
export function drawCape(): HTMLCanvasElement {
  const canvas = document.createElement('canvas');
  canvas.width = 64;
  canvas.height = 32;
  const g = canvas.getContext('2d')!;
  g.fillStyle = '#1a2540';
  g.fillRect(0, 0, 64, 32);
  for (const x of [1, 12]) {
    g.fillStyle = '#22a054';
    g.fillRect(x, 1, 10, 16);
    g.fillStyle = '#1a2540';
    g.fillRect(x + 1, 2, 8, 14);
    g.fillStyle = '#fbbf24';
    g.fillRect(x + 3, 6, 4, 4);
    g.fillStyle = '#b7860f';
    g.fillRect(x + 5, 8, 2, 2);
  }
  // Elytra: the same cloth with a green edge along the wing.
  g.fillStyle = '#22a054';
  g.fillRect(22, 0, 24, 2);
  g.fillRect(22, 0, 2, 22);
  return canvas;
}

import type { Rgba } from './skin-image.ts';

type Rgb = readonly [number, number, number];
type Face = 'top' | 'bottom' | 'right' | 'front' | 'left' | 'back';
/** Colour of pixel (x, y) of one face of a box, x and y counted from the face's top-left corner. */
type Painter = (face: Face, x: number, y: number, w: number, h: number) => Rgb;

const SKIN: Rgb = [214, 160, 122];
const SKIN_SHADE: Rgb = [190, 136, 100];
const HAIR: Rgb = [74, 52, 36];
const EYE_WHITE: Rgb = [240, 240, 240];
const EYE: Rgb = [46, 84, 160];
const MOUTH: Rgb = [150, 90, 70];
const SHIRT: Rgb = [34, 160, 84];
const SHIRT_DARK: Rgb = [24, 120, 62];
const EMBLEM: Rgb = [251, 191, 36];
const PANTS: Rgb = [43, 58, 103];
const SHOES: Rgb = [70, 74, 86];

/**
 * Writes a box's six faces at texture position (u, v) in the standard layout: top and bottom in
 * the first d rows, then right, front, left and back side by side (w, h, d are the box's width,
 * height and depth in pixels).
 */
function box(img: Rgba, u: number, v: number, w: number, h: number, d: number, paint: Painter): void {
  const faces: [Face, number, number, number, number][] = [
    ['top', u + d, v, w, d],
    ['bottom', u + d + w, v, w, d],
    ['right', u, v + d, d, h],
    ['front', u + d, v + d, w, h],
    ['left', u + d + w, v + d, d, h],
    ['back', u + d + w + d, v + d, w, h],
  ];
  for (const [face, fx, fy, fw, fh] of faces) {
    for (let y = 0; y < fh; y++) {
      for (let x = 0; x < fw; x++) {
        const [r, g, b] = paint(face, x, y, fw, fh);
        const i = ((fy + y) * img.width + fx + x) * 4;
        img.data[i] = r;
        img.data[i + 1] = g;
        img.data[i + 2] = b;
        img.data[i + 3] = 255;
      }
    }
  }
}

const head: Painter = (face, x, y) => {
  if (face === 'top' || face === 'back') return HAIR;
  if (face === 'bottom') return SKIN_SHADE;
  if (y < 2 || (face !== 'front' && y < 3)) return HAIR;
  if (face !== 'front') return SKIN;
  if (y === 4 && (x === 1 || x === 6)) return EYE_WHITE;
  if (y === 4 && (x === 2 || x === 5)) return EYE;
  if (y === 5 && (x === 3 || x === 4)) return SKIN_SHADE;
  if (y === 6 && x >= 3 && x <= 4) return MOUTH;
  return SKIN;
};

const body: Painter = (face, x, y, w) => {
  if (face === 'top') return SHIRT;
  if (face === 'bottom') return PANTS;
  if (y === 11) return SHIRT_DARK;
  if (face === 'front' && (y === 3 || y === 4) && (x === w / 2 - 1 || x === w / 2)) return EMBLEM;
  return SHIRT;
};

const arm: Painter = (face, _x, y) => {
  if (face === 'top') return SHIRT;
  if (face === 'bottom') return SKIN_SHADE;
  return y < 4 ? SHIRT : y === 4 ? SHIRT_DARK : SKIN;
};

const leg: Painter = (face, _x, y) => {
  if (face === 'top') return PANTS;
  if (face === 'bottom') return SHOES;
  return y >= 10 ? SHOES : PANTS;
};

/**
 * The skin of players who have not uploaded their own: a 64×64 character in the site's colours
 * (green shirt with a gold block on the chest), drawn here so the project ships no third-party
 * artwork. Wide arms; the outer layer is left transparent.
 */
export function drawDefaultSkin(): Rgba {
  const img: Rgba = { width: 64, height: 64, data: Buffer.alloc(64 * 64 * 4) };
  box(img, 0, 0, 8, 8, 8, head);
  box(img, 16, 16, 8, 12, 4, body);
  box(img, 40, 16, 4, 12, 4, arm); // right arm
  box(img, 32, 48, 4, 12, 4, arm); // left arm
  box(img, 0, 16, 4, 12, 4, leg); // right leg
  box(img, 16, 48, 4, 12, 4, leg); // left leg
  return img;
}

import { useSyncExternalStore } from 'react';

/*
 * The shop cart: lines kept in local storage, so they survive a reload and a login, shared by the
 * header's counter and the cart page (and other tabs, through the storage event). Prices are not
 * kept: the cart page reads them from the shop list, so a sale that ends shows at once.
 */

export interface CartLine {
  shop_id: number;
  quantity: number;
}

const KEY = 'kubik.cart';
const EVENT = 'kubik:cart';
const EMPTY: CartLine[] = [];
let cached: { raw: string | null; lines: CartLine[] } = { raw: null, lines: EMPTY };

function read(): CartLine[] {
  let raw: string | null;
  try {
    raw = localStorage.getItem(KEY);
  } catch {
    return EMPTY;
  }
  if (raw === cached.raw) return cached.lines;
  let lines: CartLine[] = EMPTY;
  try {
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    if (Array.isArray(parsed))
      lines = parsed
        .filter((l): l is CartLine => Number.isInteger(l?.shop_id) && l.shop_id > 0 && Number.isInteger(l?.quantity) && l.quantity > 0)
        .slice(0, 50);
  } catch {
    lines = EMPTY;
  }
  cached = { raw, lines };
  return lines;
}

export function setCart(lines: CartLine[]): void {
  try {
    if (lines.length === 0) localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, JSON.stringify(lines));
  } catch {
    // Private mode without storage: the cart lives until the page closes.
  }
  window.dispatchEvent(new Event(EVENT));
}

/** Adds `quantity` of an item (to a line already there). */
export function addToCart(shopId: number, quantity = 1): void {
  const lines = read();
  const found = lines.find((l) => l.shop_id === shopId);
  setCart(
    found ? lines.map((l) => (l === found ? { ...l, quantity: l.quantity + quantity } : l)) : [...lines, { shop_id: shopId, quantity }],
  );
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener(EVENT, onChange);
  window.addEventListener('storage', onChange);
  return () => {
    window.removeEventListener(EVENT, onChange);
    window.removeEventListener('storage', onChange);
  };
}

export function useCart(): CartLine[] {
  return useSyncExternalStore(subscribe, read, () => EMPTY);
}

export const CART_PATH = '/cart';

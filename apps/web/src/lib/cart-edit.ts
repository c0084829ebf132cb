import { useSyncExternalStore } from 'react';
import { CART_EVENT, CART_KEY, subscribeCart, type CartLine } from './cart.ts';

let seen: string | null = null;
let lines: CartLine[] = [];

/** The lines as stored (a broken entry is none); the same array while the storage holds the same text. */
export function readCart(): CartLine[] {
  let raw: string | null = null;
  try {
    raw = localStorage.getItem(CART_KEY);
  } catch {
    // no storage: an empty cart
  }
  if (raw !== seen) {
    seen = raw;
    try {
      // Anything but a list of lines (a broken or foreign entry) throws here and counts as empty.
      lines = (JSON.parse(raw ?? '[]') as CartLine[]).filter((l) => l.shop_id > 0 && l.quantity > 0);
    } catch {
      lines = [];
    }
  }
  return lines;
}

const NO_LINES: CartLine[] = [];
// A page the server draws shows an empty cart; the browser's own comes right after (main.tsx hydrates).
export const useCart = (): CartLine[] => useSyncExternalStore(subscribeCart, readCart, () => NO_LINES);

/** Replaces the cart's lines (at most 50: what one checkout takes). */
export function setCart(next: CartLine[]): void {
  try {
    if (next.length === 0) localStorage.removeItem(CART_KEY);
    else localStorage.setItem(CART_KEY, JSON.stringify(next.slice(0, 50)));
  } catch {
    // Private mode without storage: nothing is kept.
  }
  dispatchEvent(new Event(CART_EVENT));
}

/** Adds `quantity` of an item (to a line already there). */
export function addToCart(shopId: number, quantity = 1): void {
  const current = readCart();
  const found = current.find((l) => l.shop_id === shopId);
  setCart(
    found ? current.map((l) => (l === found ? { ...l, quantity: l.quantity + quantity } : l)) : [...current, { shop_id: shopId, quantity }],
  );
}

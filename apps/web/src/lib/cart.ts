import { useSyncExternalStore } from 'react';

/*
 * The shop cart: lines kept in local storage, so they survive a reload and a login. This file is
 * on the first page (the header's counter) and stays tiny: reading the lines and changing them is
 * in cart-edit.ts, loaded with the shop.
 */

export interface CartLine {
  shop_id: number;
  quantity: number;
}

export const CART_KEY = 'kubik.cart';
export const CART_EVENT = 'kubik:cart';
export const CART_PATH = '/cart';

/** This tab's changes (cart-edit.ts); another tab's show on the next change or visit. */
export function subscribeCart(onChange: () => void): () => void {
  addEventListener(CART_EVENT, onChange);
  return () => removeEventListener(CART_EVENT, onChange);
}

/** Pieces in the cart (0 for a broken entry or no storage). */
function cartCount(): number {
  try {
    return (JSON.parse(localStorage.getItem(CART_KEY) ?? '[]') as CartLine[]).reduce((s, l) => s + (l.quantity > 0 ? l.quantity : 0), 0);
  } catch {
    return 0;
  }
}

// A page the server draws shows an empty cart; the browser's own comes right after (main.tsx hydrates).
export const useCartCount = (): number => useSyncExternalStore(subscribeCart, cartCount, () => 0);

import { useSyncExternalStore } from 'react';

/*
 * The shop cart: lines kept in local storage, so they survive a reload and a login, shared by the
 * header's counter and the cart page. Prices are not
 * kept: the cart page reads them from the shop list, so a sale that ends shows at once. This file
 * is on the first page (the header's counter): changing the cart is in cart-edit.ts.
 */

export interface CartLine {
  shop_id: number;
  quantity: number;
}

export const CART_KEY = 'kubik.cart';
export const CART_EVENT = 'kubik:cart';
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

/** This tab's changes (cart-edit.ts); another tab's show on the next change or visit. */
function subscribe(onChange: () => void): () => void {
  addEventListener(CART_EVENT, onChange);
  return () => removeEventListener(CART_EVENT, onChange);
}

export const useCart = (): CartLine[] => useSyncExternalStore(subscribe, readCart);

export const CART_PATH = '/cart';

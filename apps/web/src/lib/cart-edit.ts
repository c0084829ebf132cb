import { CART_EVENT, CART_KEY, readCart, type CartLine } from './cart.ts';

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
  const lines = readCart();
  const found = lines.find((l) => l.shop_id === shopId);
  setCart(
    found ? lines.map((l) => (l === found ? { ...l, quantity: l.quantity + quantity } : l)) : [...lines, { shop_id: shopId, quantity }],
  );
}

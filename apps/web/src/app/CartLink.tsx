import { Link } from 'wouter';
import { CART_PATH, useCartCount } from '../lib/cart.ts';

/** The cart in the header while it holds something (lib/cart.ts keeps it in local storage); a chunk of its own, off the first page's budget. */
export default function CartLink() {
  const count = useCartCount();
  if (count === 0) return null;
  return (
    <Link to={CART_PATH} className="header-cart" data-testid="header-cart" title="Корзина">
      🛒 {count}
    </Link>
  );
}

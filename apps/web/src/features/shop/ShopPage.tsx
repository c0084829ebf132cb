import { Link, useLocation } from 'wouter';
import { CartPage } from './CartPage.tsx';
import { useAuth } from '../../providers/auth.tsx';
import { useTitle } from '../../providers/title.ts';
import { CART_PATH, useCartCount } from '../../lib/cart.ts';
import { useSite } from '../../providers/site.tsx';
import { GuestOrderReturn } from '../../components/GuestOrderReturn.tsx';
import { GuestBuy } from './GuestBuy.tsx';
import { MyPurchases } from './MyPurchases.tsx';
import { ShopPanel } from './ShopPanel.tsx';
import './shop.css';

/** /shop, and /cart (the cart is in this chunk: one lazy page less on the first page). */
export default function ShopPage() {
  const [path] = useLocation();
  return path === CART_PATH ? <CartPage /> : <Shop />;
}

function Shop() {
  useTitle('Магазин');
  const { user } = useAuth();
  const site = useSite();
  const count = useCartCount();
  return (
    <div className="stack">
      <header className="page-head shop-page-head">
        <div>
          <h1>Магазин</h1>
          <p>Купленные предметы выдаются в игре автоматически.</p>
        </div>
        {count > 0 && (
          <Link to={CART_PATH} className="btn btn-primary" data-testid="shop-cart-link">
            Корзина: {count} шт.
          </Link>
        )}
      </header>
      <GuestOrderReturn />
      <div className="card">
        <ShopPanel />
      </div>
      {user && <MyPurchases />}
      {user === null && site.guest_purchases && <GuestBuy />}
    </div>
  );
}

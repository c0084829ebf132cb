import { useTitle } from '../../providers/title.ts';
import { MyPurchases } from './MyPurchases.tsx';
import { ShopPanel } from './ShopPanel.tsx';
import './shop.css';

export default function ShopPage() {
  useTitle('Магазин');
  return (
    <div className="stack">
      <header className="page-head">
        <h1>Магазин</h1>
        <p>Купленные предметы выдаются в игре автоматически.</p>
      </header>
      <div className="card">
        <ShopPanel />
      </div>
      <MyPurchases />
    </div>
  );
}

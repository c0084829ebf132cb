import type {
  AdminDelivery,
  BuyBody,
  BuyResponse,
  CheckoutBody,
  CheckoutResponse,
  PromoPreview,
  ShopPublicCategories,
  DeliveryActionResponse,
  DeliverySource,
  DeliveryState,
  MessageResponse,
  ShopCategoriesResponse,
  ShopCategoryBody,
  ShopCategorySaveResponse,
  ShopItem,
  ShopItemAdmin,
  ShopItemCreateBody,
  ShopItemUpdateBody,
  ShopOrder,
  ShopServersResponse,
} from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const SHOP_KEY = ['shop', 'items'] as const;
export const ORDERS_KEY = ['shop', 'orders'] as const;
export const ADMIN_ITEMS_KEY = ['shop', 'admin', 'items'] as const;
export const ADMIN_SERVERS_KEY = ['shop', 'admin', 'servers'] as const;
export const DELIVERIES_KEY = ['shop', 'admin', 'deliveries'] as const;
export const CATEGORIES_KEY = ['shop', 'admin', 'categories'] as const;

export const CATEGORY_TABS_KEY = ['shop', 'categories'] as const;

export const fetchShop = () => api<ShopItem[]>('/api/shop/all');
export const fetchPublicCategories = () => api<ShopPublicCategories>('/api/shop/categories');
/** What a code takes off these lines now, counted by the server as the purchase counts it (price, discount, total). */
export const previewPromo = (code: string, lines: { shop_id: number; quantity: number }[]) =>
  api<PromoPreview>(`/api/shop/promo/${encodeURIComponent(code.trim())}?lines=${lines.map((l) => `${l.shop_id}x${l.quantity}`).join(',')}`);
/** The cart in one request, with the opening's Idempotency-Key. */
export const checkout = (body: CheckoutBody, key: string) =>
  api<CheckoutResponse>('/api/shop/checkout', { method: 'POST', body, headers: { 'Idempotency-Key': key } });

export const fetchOrders = () => api<ShopOrder[]>('/api/shop/orders');

/** Buys with the opening's Idempotency-Key (components/PurchaseModal.tsx): a retry with it answers the first result. */
export const buyItem = (body: BuyBody, key: string) =>
  api<BuyResponse>('/api/shop/buy', { method: 'POST', body, headers: { 'Idempotency-Key': key } });

export const fetchAdminItems = () => api<ShopItemAdmin[]>('/api/shop/admin/all');
export const fetchShopServers = () => api<ShopServersResponse>('/api/shop/admin/servers');
export const createItem = (body: ShopItemCreateBody) => api<ShopItemAdmin>('/api/shop/admin/create', { method: 'POST', body });
export const updateItem = (id: number, body: ShopItemUpdateBody) => api<ShopItemAdmin>(`/api/shop/admin/${id}`, { method: 'PUT', body });
export const deleteItem = (id: number) => api<MessageResponse>(`/api/shop/admin/${id}`, { method: 'DELETE' });

/** The whole delivery queue (every source), newest first. */
export function fetchDeliveries(state: DeliveryState | '', source: DeliverySource | ''): Promise<AdminDelivery[]> {
  const query = new URLSearchParams({ ...(state && { state }), ...(source && { source }) }).toString();
  return api<AdminDelivery[]>(`/api/admin/deliveries${query ? `?${query}` : ''}`);
}
/** Back into the queue; serverId moves it to another server. */
export const resendDelivery = (id: number, serverId?: number) =>
  api<DeliveryActionResponse>(`/api/admin/deliveries/${id}/resend`, {
    method: 'POST',
    body: serverId === undefined ? {} : { server_id: serverId },
  });
export const refundDelivery = (id: number) => api<DeliveryActionResponse>(`/api/shop/admin/deliveries/${id}/refund`, { method: 'POST' });

/** The owner's categories in their order (one shape under CATEGORIES_KEY for every screen). */
export const fetchCategories = async () => (await api<ShopCategoriesResponse>('/api/shop/admin/categories')).categories;
export const createCategory = (body: ShopCategoryBody) =>
  api<ShopCategorySaveResponse>('/api/shop/admin/categories', { method: 'POST', body });
export const updateCategory = (id: number, body: ShopCategoryBody) =>
  api<ShopCategorySaveResponse>(`/api/shop/admin/categories/${id}`, { method: 'PUT', body });
export const deleteCategory = (id: number) => api<MessageResponse>(`/api/shop/admin/categories/${id}`, { method: 'DELETE' });

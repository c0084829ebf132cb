import type { ShopOrder } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Badge } from '../../components/Badge.tsx';
import { DeliveryStatusNote } from '../../components/DeliveryStatusNote.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { formatDateTime, formatRub } from '../../lib/format.ts';
import { fetchOrders, ORDERS_KEY } from './api.ts';
import { DELIVERY_TONE, deliveryText, isMoving } from './deliveryState.ts';
import './shop.css';

/** The player's purchases with each delivery's state and, while it waits, why («Зайдите на сервер…»). */
export function MyPurchases({ inCard = false }: { inCard?: boolean }) {
  const headingId = useId();
  const orders = useQuery({
    queryKey: ORDERS_KEY,
    queryFn: fetchOrders,
    // While something is on its way into the game, its state is worth watching.
    refetchInterval: (q) => (q.state.data?.some((o) => o.deliveries.some((d) => isMoving(d.state))) ? 3000 : false),
  });
  return (
    <section className={inCard ? 'stack' : 'card stack'} aria-labelledby={headingId} id="purchases">
      <h2 id={headingId}>Мои покупки</h2>
      {orders.isPending ? (
        <Loading text="Загрузка покупок..." />
      ) : orders.isError ? (
        <Empty>
          <p>Не удалось загрузить покупки</p>
          <button type="button" className="btn btn-small" onClick={() => void orders.refetch()}>
            Повторить
          </button>
        </Empty>
      ) : orders.data.length === 0 ? (
        <Empty>Покупок пока нет</Empty>
      ) : (
        <ul className="orders" aria-live="polite">
          {orders.data.map((o) => (
            <OrderRow key={o.id} order={o} />
          ))}
        </ul>
      )}
    </section>
  );
}

function OrderRow({ order }: { order: ShopOrder }) {
  const several = order.deliveries.length > 1;
  return (
    <li className="order" data-testid={`order-${order.id}`}>
      <img src={order.icon} alt="" width={40} height={40} loading="lazy" className="pixelated shop-icon" />
      <div className="order-main">
        <p className="order-title">
          {order.item_name} × {order.quantity}
          {order.pieces > 1 && <span className="muted"> ({order.quantity * order.pieces} шт.)</span>}
        </p>
        <p className="muted order-meta">
          Заказ №{order.id} · {formatDateTime(order.created_at)} · {formatRub(order.total)}
        </p>
      </div>
      <div className="order-state">
        <DeliveryStatusNote status={order.delivery} />
        {several && (
          <ul className="order-deliveries" aria-label={`Выдача заказа №${order.id}`}>
            {order.deliveries.map((d) => (
              <li key={d.id}>
                <Badge tone={DELIVERY_TONE[d.state]}>
                  {d.quantity * order.pieces} шт.: {deliveryText(d.state)}
                </Badge>
              </li>
            ))}
          </ul>
        )}
      </div>
    </li>
  );
}

import { BuyBody, type ShopItem } from '@kubik/contract';
import { useId } from 'react';
import { useController, useFormContext, useWatch } from 'react-hook-form';
import { fieldDescribedBy, FieldShell } from '../../components/form/FieldShell.tsx';
import { useFormMeta, useSchemaForm } from '../../components/form/Form.tsx';
import { PurchaseForm, PurchaseModal } from '../../components/PurchaseModal.tsx';
import { buyItem } from './api.ts';
import { maxQuantity, priceText } from './itemText.ts';
import { PromoAndGift, PurchaseSummary, useShopPromo } from './PurchaseParts.tsx';

interface ItemPurchaseProps {
  /** The item being bought (kept up to date by the list); null when closed. */
  item: ShopItem | null;
  balance: number;
  onClose: () => void;
  onBought: (newBalance: number, message: string) => void;
  /** After a refused purchase: the stock or the balance may have changed. */
  onFailed: () => void;
}

/** Kopeck-exact total in roubles. */
const totalOf = (price: number, quantity: number) => Math.round(price * 100 * quantity) / 100;

export function ItemPurchase({ item, ...props }: ItemPurchaseProps) {
  return (
    <PurchaseModal title="Подтверждение покупки" open={item !== null} onClose={props.onClose}>
      {/* Keyed by item, so every opening starts again from quantity 1, with a new key. */}
      {item && <ItemForm key={item.id} item={item} {...props} />}
    </PurchaseModal>
  );
}

function ItemForm({ item, balance, onClose, onBought, onFailed }: ItemPurchaseProps & { item: ShopItem }) {
  const form = useSchemaForm(BuyBody, { defaultValues: { shop_id: item.id, quantity: 1, promo_code: '', gift_to: '' } });
  const quantity = useWatch({ control: form.control, name: 'quantity' }) as number | undefined;
  const stock = maxQuantity(item);
  const n = quantity ?? 0;
  const typedCode = useWatch({ control: form.control, name: 'promo_code' }) as string | undefined;
  const promo = useShopPromo(typedCode, [{ shop_id: item.id, quantity: n }], totalOf(item.price, n));
  return (
    <PurchaseForm
      form={form}
      balance={balance}
      total={n > 0 ? promo.total : null}
      ready={quantity !== undefined && promo.ready}
      refusal={promo.refusal}
      send={(body, key) => buyItem({ ...body, promo_code: promo.code }, key)}
      onClose={onClose}
      onBought={onBought}
      onFailed={onFailed}
    >
      <div className="purchase-item">
        <img src={item.icon} alt="" width={64} height={64} className="pixelated shop-icon" />
        <div>
          <p className="purchase-name">{item.name}</p>
          <p className="muted">
            {priceText(item)}
            {item.count !== null && ` · в наличии ${Math.max(0, item.count)} шт.`}
          </p>
        </div>
      </div>

      <QuantityField name="quantity" label="Количество" stock={stock} />
      <PromoAndGift promo={promo} />
      <PurchaseSummary testId="purchase" total={promo.total} balance={balance} discount={promo.discount} />
    </PurchaseForm>
  );
}

/**
 * A whole number from 1 to the stock with − and +: more than the stock is clamped to it, an empty
 * field is allowed while typing (the value is then undefined and nothing can be confirmed), and 0
 * is said wrong at once, next to the field.
 */
function QuantityField({ name, label, stock }: { name: string; label: string; stock: number }) {
  const { field, fieldState } = useController({ name });
  const { trigger, clearErrors } = useFormContext();
  useFormMeta().setLabel(name, label);
  const id = useId();
  const value = field.value as number | undefined;
  const error = fieldState.error?.message;

  const change = (raw: string) => {
    const digits = raw.replace(/\D/g, '').slice(0, 9);
    const next = digits === '' ? undefined : Math.min(Number(digits), stock);
    field.onChange(next);
    if (next === undefined) clearErrors(name);
    else void trigger(name);
  };
  const step = (delta: number) => change(String(Math.max(1, Math.min(stock, (value ?? 0) + delta))));

  return (
    <FieldShell id={id} label={label} error={error}>
      <div className="stepper">
        <button type="button" className="btn" aria-label="Уменьшить количество" disabled={(value ?? 0) <= 1} onClick={() => step(-1)}>
          −
        </button>
        <input
          id={id}
          ref={field.ref}
          name={field.name}
          type="text"
          inputMode="numeric"
          autoComplete="off"
          value={value === undefined ? '' : String(value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={fieldDescribedBy(id, error)}
          onBlur={field.onBlur}
          onChange={(e) => change(e.target.value)}
        />
        <button type="button" className="btn" aria-label="Увеличить количество" disabled={(value ?? 0) >= stock} onClick={() => step(1)}>
          +
        </button>
      </div>
    </FieldShell>
  );
}

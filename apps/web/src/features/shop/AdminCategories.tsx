import { ShopCategoryBody, type ShopCategory } from '@kubik/contract';
import { formatDateTime } from '../../lib/format.ts';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { RowActions } from '../../components/admin/RowMenu.tsx';
import { useCrud } from '../../components/admin/useCrud.ts';
import { DateTimeField } from '../../components/form/DateTimeField.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { NumberField, TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ADMIN_ITEMS_KEY, CATEGORIES_KEY, createCategory, deleteCategory, fetchCategories, SHOP_KEY, updateCategory } from './api.ts';

/** The owner's item categories: add, rename (the items follow), reorder, delete when empty. */
export function AdminCategories() {
  const crud = useCrud<ShopCategory, ShopCategoryBody>({
    queryKey: CATEGORIES_KEY,
    list: fetchCategories,
    refresh: [CATEGORIES_KEY, ADMIN_ITEMS_KEY, SHOP_KEY],
    create: createCategory,
    update: (c, body) => updateCategory(c.id, body),
    remove: (c) => deleteCategory(c.id),
    texts: {
      created: 'Категория добавлена',
      updated: 'Категория изменена',
      removed: 'Категория удалена',
      saveFailed: (err) => err.message || 'Не удалось сохранить категорию',
      removeFailed: (err) => err.message || 'Не удалось удалить категорию',
      confirmRemove: (c) => `Удалить категорию «${c.name}»?`,
    },
  });
  const columns: Column<ShopCategory>[] = [
    { header: 'Название', cell: (c) => c.name, kind: 'main' },
    { header: 'Товаров', cell: (c) => c.items, kind: 'num' },
    { header: 'Порядок', cell: (c) => c.position, kind: 'num' },
    {
      header: 'Акция',
      cell: (c) =>
        c.sale_percent === null ? '—' : `−${c.sale_percent} %${c.sale_ends_at === null ? '' : ` до ${formatDateTime(c.sale_ends_at)}`}`,
    },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (c) => (
        <RowActions what={`категорию «${c.name}»`} onEdit={() => crud.openEdit(c)} onDelete={() => crud.remove(c)} busy={crud.removing} />
      ),
    },
  ];
  return (
    <AdminSection
      title="Категории"
      actions={
        <button type="button" className="btn btn-primary" onClick={crud.openNew}>
          Добавить категорию
        </button>
      }
    >
      <p className="muted">Категорию с товарами удалить нельзя — сначала перенесите товары. При переименовании товары остаются в ней.</p>
      <QueryState
        query={crud.list}
        loading="Загрузка категорий..."
        error="Не удалось загрузить категории"
        empty="Категорий нет. Добавьте первую."
      >
        {(rows) => <DataTable label="Категории" rows={rows} columns={columns} rowKey={(c) => c.id} />}
      </QueryState>
      {crud.dialog}
      <Modal open={crud.editing !== undefined} title={crud.editing ? 'Изменить категорию' : 'Добавить категорию'} onClose={crud.close}>
        {crud.editing !== undefined && (
          <CategoryForm key={crud.editing?.id ?? 'new'} category={crud.editing} onSave={crud.save} onCancel={crud.close} />
        )}
      </Modal>
    </AdminSection>
  );
}

function CategoryForm({
  category,
  onSave,
  onCancel,
}: {
  category: ShopCategory | null;
  onSave: (body: ShopCategoryBody) => Promise<void>;
  onCancel: () => void;
}) {
  const form = useSchemaForm(ShopCategoryBody, {
    defaultValues: {
      name: category?.name ?? '',
      ...(category && { position: category.position }),
      sale_percent: category?.sale_percent ?? null,
      sale_ends_at: category?.sale_ends_at ?? null,
    },
  });
  return (
    <Form form={form} onSubmit={onSave}>
      <TextField name="name" label="Название" maxLength={32} autoComplete="off" />
      <NumberField name="position" label="Порядок" hint="Меньше — выше в списке. Пусто — в конец." />
      <NumberField
        name="sale_percent"
        label="Акция: скидка на категорию, %"
        empty={null}
        hint="Пусто — без акции; своя цена товара по акции важнее"
      />
      <DateTimeField name="sale_ends_at" label="Акция до" hint="Пусто — пока не уберёте скидку" />
      <FormErrors />
      <FormActions onCancel={onCancel} />
    </Form>
  );
}

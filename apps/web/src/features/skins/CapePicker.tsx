import { CAPE_TEXTS, type ChooseCapeBody, type Cape, type MyCapes } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { Form, FormErrors, useSchemaForm, type ServerErrorRules } from '../../components/form/Form.tsx';
import { RadioGroupField } from '../../components/form/fields.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { chooseCape, fetchMyCapes, MY_CAPES_KEY } from './api.ts';

/** The capes query, shared by the picker and the preview (which shows the chosen one). */
export function useMyCapes() {
  return useQuery({ queryKey: MY_CAPES_KEY, queryFn: fetchMyCapes });
}

/** The chosen cape of the player, if any. */
export function chosenCape(data: MyCapes | undefined): Cape | null {
  return data?.capes.find((c) => c.id === data.selected) ?? null;
}

/** The radio's value is the cape's id as text, '' for «Без плаща». */
const Choice = z.object({ cape_id: z.string() }).transform(({ cape_id }) => ({ cape_id: cape_id === '' ? null : Number(cape_id) }));
const CHOICE_ERRORS: ServerErrorRules = { formText: (error) => error?.message || 'Не удалось выбрать плащ' };

/**
 * The player's cape: «Без плаща» or one of the capes the administration gave them (or their
 * donate tier). The choice is saved at once and is what the game shows.
 */
export function CapePicker({ onChosen }: { onChosen: (cape: Cape | null) => void }) {
  const capes = useMyCapes();
  if (capes.isPending) return <p className="muted">Загрузка плащей...</p>;
  if (capes.isError) return <p className="muted">Не удалось загрузить плащи.</p>;
  return <CapeChoice data={capes.data} onChosen={onChosen} />;
}

function CapeChoice({ data, onChosen }: { data: MyCapes; onChosen: (cape: Cape | null) => void }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const saved = data.selected === null ? '' : String(data.selected);
  // The choice shows at once; a saved answer (here or from a refetch) resets the form to it.
  const form = useSchemaForm(Choice, { values: { cape_id: saved } });

  async function choose(body: ChooseCapeBody) {
    try {
      const next = await chooseCape(body.cape_id);
      queryClient.setQueryData(MY_CAPES_KEY, next);
      const cape = chosenCape(next);
      onChosen(cape);
      notify('success', cape ? `${CAPE_TEXTS.saved}: «${cape.title}»` : CAPE_TEXTS.removed);
    } catch (err) {
      // Refused: the saved choice comes back, the reason stands under the list.
      form.setValue('cape_id', saved);
      throw err;
    }
  }

  const { capes: list } = data;
  return (
    <Form form={form} onSubmit={choose} serverErrors={CHOICE_ERRORS} className="form cape-form">
      <RadioGroupField
        name="cape_id"
        label="Плащ"
        className="skin-options cape-picker"
        submitOnChange
        options={[
          { value: '', label: 'Без плаща' },
          ...list.map((cape) => ({
            value: String(cape.id),
            className: 'cape-option',
            label: (
              <>
                <img className="cape-thumb" src={cape.url} alt="" width={48} height={24} />
                {cape.title}
              </>
            ),
          })),
        ]}
        hint={
          list.length === 0
            ? 'Плащей у вас пока нет: их выдаёт администрация или дают донат-привилегии.'
            : 'Выбранный плащ виден в игре и в предпросмотре.'
        }
      />
      <FormErrors fields={false} />
    </Form>
  );
}

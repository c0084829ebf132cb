import { CAPE_TEXTS, type Cape, type MyCapes } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ApiError } from '../../lib/api.ts';
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

/**
 * The player's cape: «Без плаща» or one of the capes the administration gave them (or their
 * donate tier). The choice is saved at once and is what the game shows.
 */
export function CapePicker({ onChosen }: { onChosen: (cape: Cape | null) => void }) {
  const ids = useId();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const capes = useMyCapes();
  // The choice shows at once (set in the click's own render); it goes back if the server refuses it.
  const [choice, setChoice] = useState<{ id: number | null } | null>(null);
  const save = useMutation({
    mutationFn: chooseCape,
    onSettled: () => setChoice(null),
    onSuccess: (data) => {
      queryClient.setQueryData(MY_CAPES_KEY, data);
      const cape = chosenCape(data);
      onChosen(cape);
      notify('success', cape ? `${CAPE_TEXTS.saved}: «${cape.title}»` : CAPE_TEXTS.removed);
    },
    onError: (err) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось выбрать плащ'),
  });

  if (capes.isPending) return <p className="muted">Загрузка плащей...</p>;
  if (capes.isError) return <p className="muted">Не удалось загрузить плащи.</p>;
  const { capes: list } = capes.data;
  const selected = choice ? choice.id : capes.data.selected;
  const pick = (id: number | null) => {
    setChoice({ id });
    save.mutate(id);
  };
  return (
    <fieldset className="skin-options cape-picker" aria-describedby={`${ids}-hint`}>
      <legend>Плащ</legend>
      <label className="checkbox">
        <input type="radio" name={`${ids}-cape`} checked={selected === null} disabled={save.isPending} onChange={() => pick(null)} />
        Без плаща
      </label>
      {list.map((cape) => (
        <label key={cape.id} className="checkbox cape-option">
          <input
            type="radio"
            name={`${ids}-cape`}
            checked={selected === cape.id}
            disabled={save.isPending}
            onChange={() => pick(cape.id)}
          />
          <img className="cape-thumb" src={cape.url} alt="" width={48} height={24} />
          {cape.title}
        </label>
      ))}
      <p className="hint" id={`${ids}-hint`}>
        {list.length === 0
          ? 'Плащей у вас пока нет: их выдаёт администрация или дают донат-привилегии.'
          : 'Выбранный плащ виден в игре и в предпросмотре.'}
      </p>
    </fieldset>
  );
}

import { PlayerPrivacy } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { fetchPrivacy, playerPath, PRIVACY_KEY, savePrivacy, SHOWCASE_KEY } from './api.ts';

/** Профиль → Настройки: whether others see the public profile and the name on the home page. */
export function PrivacyPanel({ username }: { username: string }) {
  const query = useQuery({ queryKey: PRIVACY_KEY, queryFn: fetchPrivacy });
  return (
    <section className="card" aria-labelledby="privacy-h">
      <h2 id="privacy-h">Открытый профиль</h2>
      <p className="muted">
        Ваш профиль: <Link to={playerPath(username)}>{`/u/${username}`}</Link>
      </p>
      <QueryState query={query} error="Не удалось загрузить настройки профиля" isEmpty={() => false}>
        {(data) => <PrivacyForm key={String(data.hidden)} value={data} />}
      </QueryState>
    </section>
  );
}

function PrivacyForm({ value }: { value: PlayerPrivacy }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm(PlayerPrivacy, { defaultValues: value });
  return (
    <Form
      form={form}
      className="form"
      onSubmit={async (body) => {
        const saved = await savePrivacy(body);
        queryClient.setQueryData(PRIVACY_KEY, saved);
        void queryClient.invalidateQueries({ queryKey: SHOWCASE_KEY });
        void queryClient.invalidateQueries({ queryKey: ['players'] });
        notify('success', saved.hidden ? 'Профиль скрыт' : 'Профиль открыт');
      }}
    >
      <CheckboxField
        name="hidden"
        label="Скрыть мой профиль"
        hint="На сайте другие увидят только имя в вашем профиле; в покупках и топах вместо имени будет «Игрок скрыл имя», а в списке игроков онлайн вас не будет. В игре и в лаунчере ник виден как обычно."
      />
      <FormErrors />
      <FormActions />
    </Form>
  );
}

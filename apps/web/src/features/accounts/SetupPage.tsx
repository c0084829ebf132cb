import { SetupBody, type SetupStatus } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { Form, FormErrors, SubmitButton, useSchemaForm } from '../../components/form/Form.tsx';
import { FieldGroup, NumberField, TextField } from '../../components/form/fields.tsx';
import { PasswordHint } from '../../components/PasswordHint.tsx';
import { Loading } from '../../components/States.tsx';
import { api } from '../../lib/api.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';

const SETUP_KEY = ['setup'] as const;

/**
 * First-run setup: while the site has no administrator, every page leads here (the
 * server redirects). The one-time code from the server's log creates the owner's account, names
 * the site and gives the game address; the owner is signed in and lands in the admin area.
 */
export default function SetupPage() {
  useTitle('Первый запуск');
  const status = useQuery({ queryKey: SETUP_KEY, queryFn: () => api<SetupStatus>('/api/setup'), staleTime: 0 });
  if (status.isPending) return <Loading />;
  if (!status.data?.needed)
    return (
      <section className="card card-narrow stack">
        <h1>Сайт уже настроен</h1>
        <p>Владелец сайта уже создан. Войдите в свой аккаунт, чтобы открыть админ-панель.</p>
        <p>
          <Link to="/login" className="btn btn-primary">
            Войти
          </Link>
        </p>
      </section>
    );
  return <SetupForm />;
}

function SetupForm() {
  const [, navigate] = useLocation();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm(SetupBody, {
    defaultValues: { code: '', username: '', email: '', password: '', site_name: '', game_address: '' },
  });
  const [username, email, password] = form.watch(['username', 'email', 'password']);
  const [withServer, setWithServer] = useState(false);
  function toggleServer(on: boolean) {
    setWithServer(on);
    if (on) form.setValue('server', { name: '', ip_address: '', port: 25565, rcon_password: '' });
    else form.unregister('server');
  }
  return (
    <section className="card card-narrow">
      <h1>Первый запуск</h1>
      <p className="muted">
        Создайте аккаунт владельца сайта. Одноразовый код напечатан в журнале сервера (строка «First-run setup») и записан в файл{' '}
        <code>setup-code</code> в папке данных сайта.
      </p>
      <Form
        form={form}
        onSubmit={async (body) => {
          const server = withServer && body.server ? { ...body.server, rcon_password: body.server.rcon_password || undefined } : undefined;
          await api('/api/setup', { method: 'POST', body: { ...body, game_address: body.game_address || undefined, server } });
          await queryClient.invalidateQueries();
          notify('success', 'Сайт настроен. Добро пожаловать в админ-панель!');
          navigate('/admin');
        }}
      >
        <TextField name="code" label="Код из журнала сервера" autoComplete="one-time-code" spellCheck={false} />
        <TextField name="site_name" label="Название сайта" hint="Его видно в шапке, во вкладке браузера и в письмах." />
        <TextField
          name="game_address"
          label="Адрес игрового сервера"
          hint="Необязательно, например play.example.ru — его покажет главная страница."
        />
        <label className="checkbox">
          <input type="checkbox" checked={withServer} onChange={(e) => toggleServer(e.target.checked)} /> Добавить первый игровой сервер
        </label>
        {withServer && (
          <FieldGroup legend="Первый сервер">
            <TextField name="server.name" label="Название сервера" maxLength={64} hint="Например, «Выживание»." />
            <TextField name="server.ip_address" label="Адрес сервера (хост)" spellCheck={false} hint="Домен или IP, без порта." />
            <NumberField name="server.port" label="Порт" />
            <TextField
              name="server.rcon_password"
              label="Пароль RCON"
              type="password"
              autoComplete="off"
              hint="Необязательно: нужен, чтобы сайт выдавал покупки в игре. Его можно задать позже в разделе «Серверы»."
            />
          </FieldGroup>
        )}
        <TextField
          name="username"
          label="Имя владельца"
          autoComplete="username"
          hint="Ваш ник в игре: 3–16 латинских букв, цифр или «_»."
        />
        <TextField name="email" label="Почта" type="email" autoComplete="email" />
        <TextField
          name="password"
          label="Пароль"
          type="password"
          autoComplete="new-password"
          hint={<PasswordHint password={password} others={[username, email]} />}
        />
        <FormErrors />
        <SubmitButton label="Создать владельца и открыть сайт" pendingLabel="Создаём…" className="btn btn-primary btn-block" />
      </Form>
    </section>
  );
}

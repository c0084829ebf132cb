import { AppealBody, SUPPORT_LIMITS, SUPPORT_TEXTS } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { Form, FormErrors, SubmitButton, useSchemaForm } from '../../components/form/Form.tsx';
import { TextAreaField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useTitle } from '../../providers/title.ts';
import { appealKey, fetchAppeal, replyToAppeal, sendAppeal } from './api.ts';
import { StateBadge, Thread } from './parts.tsx';
import './support.css';

/**
 * /support/appeal#<token>: a banned player's appeal, without logging in. The token comes from
 * the login page (after the right password) or from a letter, in the address's fragment, which
 * the browser never sends to the server or to other sites.
 */
export default function AppealPage() {
  useTitle('Обжалование блокировки');
  const [token, setToken] = useState<string | null>(null);
  useEffect(() => {
    setToken(decodeURIComponent(window.location.hash.slice(1)) || '');
  }, []);
  if (token === null) return null;
  return (
    <div className="stack support-page">
      <h1>Обжалование блокировки</h1>
      {token ? (
        <Appeal token={token} />
      ) : (
        <div className="notice" role="status">
          <p>
            Чтобы обжаловать блокировку, войдите со своим именем и паролем: вместо входа появится ссылка «Обжаловать блокировку». Её же
            присылаем в письмах об обжаловании.
          </p>
          <Link to="/login" className="btn btn-small">
            Ко входу
          </Link>
        </div>
      )}
    </div>
  );
}

function Appeal({ token }: { token: string }) {
  const view = useQuery({ queryKey: appealKey(token), queryFn: () => fetchAppeal(token), retry: false });
  return (
    <QueryState query={view} error="Не удалось открыть обжалование">
      {(v) => (
        <>
          <div className="notice notice-warning">
            <p>
              <strong>{v.username}</strong>: {v.ban.text}
            </p>
          </div>
          {v.ticket ? (
            <>
              <div className="support-head">
                <h2>Переписка</h2>
                <StateBadge state={v.ticket.state} />
              </div>
              <Thread ticket={v.ticket} />
              {v.ticket.state === 'closed' ? <p className="notice">Обжалование закрыто.</p> : <AppealForm token={token} reply />}
            </>
          ) : (
            <>
              <p className="muted">
                Расскажите, почему блокировку стоит снять. Ответ придёт на почту аккаунта; в письме будет ссылка на эту переписку.
              </p>
              <AppealForm token={token} reply={false} />
            </>
          )}
        </>
      )}
    </QueryState>
  );
}

function AppealForm({ token, reply }: { token: string; reply: boolean }) {
  const form = useSchemaForm(AppealBody, { defaultValues: { message: '' } });
  const client = useQueryClient();
  const submit = async ({ message }: { message: string }) => {
    if (reply) await replyToAppeal(token, message);
    else await sendAppeal(token, message);
    form.reset({ message: '' });
    await client.invalidateQueries({ queryKey: appealKey(token) });
  };
  return (
    <Form
      form={form}
      onSubmit={submit}
      className="form card"
      serverErrors={{ codes: { appeal_exists: { text: SUPPORT_TEXTS.appealExists } } }}
    >
      <TextAreaField
        name="message"
        label={reply ? 'Ваш ответ' : 'Почему блокировку стоит снять'}
        rows={6}
        maxLength={SUPPORT_LIMITS.messageMax}
      />
      <FormErrors fields={false} />
      <div className="form-actions">
        <SubmitButton label={reply ? 'Отправить ответ' : 'Отправить обжалование'} pendingLabel="Отправляем…" />
      </div>
    </Form>
  );
}

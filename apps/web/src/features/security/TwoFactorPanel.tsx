import { TwoFactorDisableBody, TwoFactorEnableBody, type TwoFactorSetupResponse } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { z } from 'zod';
import { Form, FormActions, FormErrors, SubmitButton, useSchemaForm, type ServerErrorRules } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDate, plural } from '../../lib/format.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { disableTwoFactor, enableTwoFactor, fetchTwoFactor, startSetup, TWO_FACTOR_KEY, scrollToHash } from './api.ts';
import './security.css';

/** The server's text beside the field it names, else above the button; without a text, `failed`. */
const errorsOf = (failed: string): ServerErrorRules => ({ formText: (error) => error?.message || failed });

/** «ABCD EFGH …»: easier to type from the screen; apps ignore the spaces. */
const grouped = (secret: string) => secret.replace(/(.{4})/g, '$1 ').trim();

/** Profile → Настройки: turn two-factor login on (QR code, the secret to type, a code), see the recovery codes once, turn it off. */
export function TwoFactorPanel() {
  const status = useQuery({ queryKey: TWO_FACTOR_KEY, queryFn: fetchTwoFactor });
  const loaded = status.isSuccess;
  useEffect(() => {
    if (loaded) scrollToHash('two-factor');
  }, [loaded]);
  const [codes, setCodes] = useState<string[] | null>(null);
  return (
    <section className="stack security-section" id="two-factor" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Двухфакторная защита</h2>
      {codes ? (
        <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
      ) : (
        <QueryState query={status} error="Не удалось узнать, включена ли двухфакторная защита">
          {(s) => (
            <>
              {s.required && !s.enabled && (
                <p className="notice notice-warning" role="alert">
                  Администраторам нужна двухфакторная защита: пока она не включена, админ-панель недоступна.
                </p>
              )}
              {s.enabled ? <Enabled since={s.enabled_at} left={s.recovery_codes_left} /> : <Setup onEnabled={setCodes} />}
            </>
          )}
        </QueryState>
      )}
    </section>
  );
}

function Setup({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const [setup, setSetup] = useState<TwoFactorSetupResponse | null>(null);
  const [beginError, setBeginError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useSchemaForm(TwoFactorEnableBody, { defaultValues: { code: '' } });

  async function begin() {
    setBusy(true);
    setBeginError(null);
    try {
      setSetup(await startSetup());
      form.reset();
    } catch (err) {
      setBeginError(err instanceof ApiError && err.message ? err.message : 'Не удалось начать подключение. Попробуйте ещё раз.');
    } finally {
      setBusy(false);
    }
  }

  async function enable({ code }: TwoFactorEnableBody) {
    const res = await enableTwoFactor(code);
    notify('success', res.message);
    onEnabled(res.recovery_codes);
    await queryClient.invalidateQueries({ queryKey: TWO_FACTOR_KEY });
  }

  if (!setup) {
    return (
      <div className="stack">
        <p>
          Кроме пароля, при входе на сайт и в лаунчер понадобится код из приложения-аутентификатора на телефоне (Google Authenticator,
          Яндекс Ключ, Microsoft Authenticator и другие). Так никто не войдёт в аккаунт, даже узнав пароль.
        </p>
        {beginError && (
          <p className="notice notice-danger" role="alert">
            {beginError}
          </p>
        )}
        <div>
          <button type="button" className="btn btn-primary" onClick={() => void begin()} disabled={busy}>
            {busy ? 'Готовим…' : 'Подключить'}
          </button>
        </div>
      </div>
    );
  }
  return (
    <Form form={form} onSubmit={enable} serverErrors={errorsOf('Не удалось включить защиту. Попробуйте ещё раз.')} className="form stack">
      <ol className="setup-steps">
        <li>Откройте приложение-аутентификатор и отсканируйте QR-код.</li>
        <li>
          Или добавьте аккаунт вручную, введя ключ:{' '}
          <code className="totp-secret" data-testid="totp-secret">
            {grouped(setup.secret)}
          </code>
        </li>
        <li>Введите шестизначный код, который покажет приложение.</li>
      </ol>
      <img className="totp-qr" src={setup.qr_data_url} width={200} height={200} alt="QR-код для приложения-аутентификатора" />
      <TextField name="code" label="Код из приложения" inputMode="numeric" autoComplete="one-time-code" maxLength={32} />
      <FormErrors fields={false} />
      <FormActions onCancel={() => setSetup(null)} submitLabel="Включить" pendingLabel="Проверяем…" />
    </Form>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const notify = useNotify();
  const text = `Коды восстановления (каждый действует один раз):\n${codes.join('\n')}\n`;
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      notify('success', 'Коды скопированы');
    } catch {
      notify('warning', 'Не удалось скопировать: выделите коды и скопируйте их вручную');
    }
  }
  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'kody-vosstanovleniya.txt';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
  return (
    <div className="stack" data-testid="recovery-codes">
      <p className="notice notice-success">Двухфакторная защита включена.</p>
      <p>
        Сохраните коды восстановления: если телефон потеряется, любой из них заменит код из приложения (каждый — один раз).{' '}
        <strong>Больше они не будут показаны.</strong>
      </p>
      <ul className="recovery-codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div className="row">
        <button type="button" className="btn" onClick={() => void copy()}>
          Скопировать
        </button>
        <button type="button" className="btn" onClick={download}>
          Скачать
        </button>
        <button type="button" className="btn btn-primary" onClick={onDone}>
          Я сохранил коды
        </button>
      </div>
    </div>
  );
}

/** Turning it off: both fields are asked for at once, the code in the words of this form. */
const DisableForm = TwoFactorDisableBody.extend({
  code: z.string().trim().min(1, 'Введите код из приложения или код восстановления').pipe(TwoFactorDisableBody.shape.code),
});

function Enabled({ since, left }: { since: number | null; left: number }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm(DisableForm, { defaultValues: { password: '', code: '' } });

  async function disable({ password, code }: TwoFactorDisableBody) {
    const res = await disableTwoFactor(password, code);
    notify('success', res.message);
    form.reset();
    await queryClient.invalidateQueries({ queryKey: TWO_FACTOR_KEY });
  }

  return (
    <div className="stack">
      <p>
        <span className="badge badge-success">Включена</span>
        {since !== null && ` с ${formatDate(since)}`}. При входе нужен код из приложения. Осталось {left}{' '}
        {plural(left, ['код', 'кода', 'кодов'])} восстановления.
      </p>
      {left <= 3 && (
        <p className="notice notice-warning">
          Кодов восстановления осталось мало. Чтобы получить новые, отключите защиту и включите её снова.
        </p>
      )}
      <section className="stack" aria-labelledby="two-factor-off-title">
        <h3 id="two-factor-off-title">Отключить</h3>
        <Form form={form} onSubmit={disable} serverErrors={errorsOf('Не удалось отключить защиту. Попробуйте ещё раз.')}>
          <TextField name="password" label="Пароль" type="password" autoComplete="current-password" />
          <TextField name="code" label="Код из приложения или код восстановления" autoComplete="one-time-code" maxLength={32} />
          <FormErrors fields={false} />
          <div>
            <SubmitButton label="Отключить защиту" pendingLabel="Отключаем…" className="btn btn-danger" />
          </div>
        </Form>
      </section>
    </div>
  );
}

import type { TwoFactorSetupResponse } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Field } from '../../components/Field.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDate, plural } from '../../lib/format.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { disableTwoFactor, enableTwoFactor, fetchTwoFactor, startSetup, TWO_FACTOR_KEY, scrollToHash } from './api.ts';
import './security.css';

type Errors = Partial<Record<'code' | 'password' | 'form', string>>;

/** An ApiError's text beside the field it names, else above the button. */
function errorsOf(err: unknown, fallback: string): Errors {
  if (err instanceof ApiError && err.message)
    return err.field === 'code' || err.field === 'password' ? { [err.field]: err.message } : { form: err.message };
  return { form: fallback };
}

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
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  async function begin() {
    setBusy(true);
    setErrors({});
    try {
      setSetup(await startSetup());
      setCode('');
    } catch (err) {
      setErrors(errorsOf(err, 'Не удалось начать подключение. Попробуйте ещё раз.'));
    } finally {
      setBusy(false);
    }
  }

  async function enable(e: FormEvent) {
    e.preventDefault();
    if (!code.trim()) return setErrors({ code: 'Введите код из приложения' });
    setBusy(true);
    setErrors({});
    try {
      const res = await enableTwoFactor(code.trim());
      notify('success', res.message);
      onEnabled(res.recovery_codes);
      await queryClient.invalidateQueries({ queryKey: TWO_FACTOR_KEY });
    } catch (err) {
      setErrors(errorsOf(err, 'Не удалось включить защиту. Попробуйте ещё раз.'));
    } finally {
      setBusy(false);
    }
  }

  if (!setup) {
    return (
      <div className="stack">
        <p>
          Кроме пароля, при входе на сайт и в лаунчер понадобится код из приложения-аутентификатора на телефоне (Google Authenticator,
          Яндекс Ключ, Microsoft Authenticator и другие). Так никто не войдёт в аккаунт, даже узнав пароль.
        </p>
        {errors.form && (
          <p className="notice notice-danger" role="alert">
            {errors.form}
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
    <form className="form stack" onSubmit={(e) => void enable(e)} noValidate>
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
      <Field
        label="Код из приложения"
        name="code"
        inputMode="numeric"
        autoComplete="one-time-code"
        value={code}
        onChange={(e) => setCode(e.target.value)}
        error={errors.code}
        maxLength={32}
      />
      {errors.form && (
        <p className="notice notice-danger" role="alert">
          {errors.form}
        </p>
      )}
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Проверяем…' : 'Включить'}
        </button>
        <button type="button" className="btn" onClick={() => setSetup(null)} disabled={busy}>
          Отмена
        </button>
      </div>
    </form>
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

function Enabled({ since, left }: { since: number | null; left: number }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  async function disable(e: FormEvent) {
    e.preventDefault();
    const missing: Errors = {};
    if (!password) missing.password = 'Введите пароль';
    if (!code.trim()) missing.code = 'Введите код из приложения или код восстановления';
    if (missing.password || missing.code) return setErrors(missing);
    setBusy(true);
    setErrors({});
    try {
      const res = await disableTwoFactor(password, code.trim());
      notify('success', res.message);
      setPassword('');
      setCode('');
      await queryClient.invalidateQueries({ queryKey: TWO_FACTOR_KEY });
    } catch (err) {
      setErrors(errorsOf(err, 'Не удалось отключить защиту. Попробуйте ещё раз.'));
    } finally {
      setBusy(false);
    }
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
      <form className="form" onSubmit={(e) => void disable(e)} noValidate aria-label="Отключить двухфакторную защиту">
        <h3>Отключить</h3>
        <Field
          label="Пароль"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.password}
        />
        <Field
          label="Код из приложения или код восстановления"
          name="code"
          autoComplete="one-time-code"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          error={errors.code}
          maxLength={32}
        />
        {errors.form && (
          <p className="notice notice-danger" role="alert">
            {errors.form}
          </p>
        )}
        <div>
          <button type="submit" className="btn btn-danger" disabled={busy}>
            {busy ? 'Отключаем…' : 'Отключить защиту'}
          </button>
        </div>
      </form>
    </div>
  );
}

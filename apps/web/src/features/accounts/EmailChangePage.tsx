import { useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { ApiError } from '../../lib/api.ts';
import { useTitle } from '../../providers/title.ts';
import { cancelEmailChange, confirmEmailChange } from './self-api.ts';
import './accounts.css';

/**
 * Where the letters' links lead: /email-change?confirm=… (the new address) or ?cancel=… (the old
 * one). The change is made by the button, not by opening the page, so a mail scanner that
 * follows links cannot confirm or cancel anything.
 */
export default function EmailChangePage() {
  const [params] = useSearchParams();
  const confirm = params.get('confirm');
  const cancel = params.get('cancel');
  const token = confirm ?? cancel ?? '';
  const isCancel = confirm === null && cancel !== null;
  useTitle(isCancel ? 'Отмена смены почты' : 'Подтверждение новой почты');
  const [state, setState] = useState<{ kind: 'idle' | 'busy' } | { kind: 'done' | 'failed'; text: string }>({ kind: 'idle' });

  async function act() {
    setState({ kind: 'busy' });
    try {
      const res = isCancel ? await cancelEmailChange(token) : await confirmEmailChange(token);
      setState({ kind: 'done', text: res.message });
    } catch (err) {
      setState({ kind: 'failed', text: err instanceof ApiError && err.message ? err.message : 'Произошла ошибка. Попробуйте позже.' });
    }
  }

  return (
    <section className="card card-narrow stack">
      <h1>{isCancel ? 'Отмена смены почты' : 'Подтверждение новой почты'}</h1>
      {!token ? (
        <p className="notice notice-danger" role="alert">
          В ссылке нет кода. Откройте ссылку из письма целиком.
        </p>
      ) : state.kind === 'done' ? (
        <>
          <p className="notice notice-success" role="status">
            {state.text}
          </p>
          <p>
            <Link to={isCancel ? '/login' : '/profile?tab=settings'} className="btn btn-primary">
              {isCancel ? 'Войти' : 'В личный кабинет'}
            </Link>
          </p>
        </>
      ) : (
        <>
          <p>
            {isCancel
              ? 'Смена почты будет отменена (или отменена уже сделанная смена), прежний адрес вернётся, и аккаунт выйдет на всех устройствах.'
              : 'Нажмите кнопку, чтобы этот адрес стал почтой вашего аккаунта.'}
          </p>
          {state.kind === 'failed' && (
            <p className="notice notice-danger" role="alert">
              {state.text}
            </p>
          )}
          <div>
            <button
              type="button"
              className={isCancel ? 'btn btn-danger btn-block' : 'btn btn-primary btn-block'}
              onClick={act}
              disabled={state.kind === 'busy'}
            >
              {state.kind === 'busy' ? 'Подождите…' : isCancel ? 'Отменить смену почты' : 'Подтвердить новую почту'}
            </button>
          </div>
        </>
      )}
    </section>
  );
}

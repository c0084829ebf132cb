import { useEffect, useRef, useState } from 'react';

/**
 * The copying code is asked for when the button is pointed at or focused, so the home page's first
 * script stays within its budget; by the click it is in (and a click without it waits a moment,
 * well within the browser's few seconds of user activation).
 */
const loadClipboard = () => import('../lib/clipboard.ts');

/**
 * A value to copy (the game address) with its button: «Скопировать» → «Скопировано» for 2 s. When
 * the browser allows no way to copy, the value is selected and the button asks for Ctrl+C.
 */
export function CopyText({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const [state, setState] = useState<'' | 'Скопировано' | 'Нажмите Ctrl+C'>('');
  const value = useRef<HTMLElement>(null);
  const timer = useRef(0);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    const ok = await (await loadClipboard()).copyText(text);
    if (!ok) getSelection()?.selectAllChildren(value.current!);
    setState(ok ? 'Скопировано' : 'Нажмите Ctrl+C');
    clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setState(''), ok ? 2000 : 6000);
  }

  return (
    <span className="copy-text">
      <code ref={value} className="copy-text-value" data-testid={testId}>
        {text}
      </code>
      <button
        type="button"
        className="btn btn-small copy-text-button"
        data-done={state !== '' || undefined}
        onClick={() => void copy()}
        onPointerEnter={() => void loadClipboard()}
        onFocus={() => void loadClipboard()}
        aria-label={`${state || 'Скопировать'}: ${label}`}
      >
        <span aria-live="polite">{state || 'Скопировать'}</span>
      </button>
    </span>
  );
}
